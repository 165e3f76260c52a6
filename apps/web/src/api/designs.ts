import {
  keepPreviousData,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import type {
  CostDataInput,
  Design,
  DesignList,
  EstimateCostInput,
  PriceTable,
  PrintConfig,
  PrintConfigInput,
  Quote,
} from '@layerline/contracts';
import { ApiError, apiFetch } from './client.ts';

/** The triangles of one problem, as indices into the design's viewer mesh (capped by the server). */
export interface ProblemArea {
  code: string;
  message: string;
  triangles: number[];
}

/** Query keys of designs, configurations, quotes and the admin's price table. */
export const designKeys = {
  all: ['designs'] as const,
  lists: ['designs', 'list'] as const,
  list: (search: string, cursor: string | undefined, limit: number) =>
    ['designs', 'list', { search, cursor, limit }] as const,
  detail: (id: string) => ['designs', 'detail', id] as const,
  problemAreas: (id: string) => ['designs', 'problem-areas', id] as const,
  estimate: (input: EstimateCostInput) => ['designs', 'estimate', input] as const,
  adminLists: ['admin', 'designs'] as const,
  adminList: (search: string, cursor: string | undefined, limit: number) =>
    ['admin', 'designs', { search, cursor, limit }] as const,
  priceTable: ['admin', 'price-table'] as const,
};

const id = encodeURIComponent;

/** The query of a keyset-paged list: the search, the page's cursor (none for the first) and its size. */
export function listQuery(search: string, cursor: string | undefined, limit: number): string {
  const query = new URLSearchParams({ search, limit: String(limit) });
  if (cursor) query.set('cursor', cursor);
  return query.toString();
}

/** A design or one of its configurations changed: every list and that design's detail are stale. */
function invalidateDesign(queryClient: QueryClient, designId?: string) {
  void queryClient.invalidateQueries({ queryKey: designKeys.lists });
  void queryClient.invalidateQueries({ queryKey: designKeys.adminLists });
  if (designId) void queryClient.invalidateQueries({ queryKey: designKeys.detail(designId) });
}

/** Slicing runs in the background; while it does, the detail is re-read so the exact quote appears. */
function isSlicing(design: Design | undefined): boolean {
  return (
    design?.printConfigs.some(
      (config) => config.slicing.status === 'queued' || config.slicing.status === 'running',
    ) ?? false
  );
}

const SLICING_POLL_MS = 3000;

export function useDesigns(search: string, cursor: string | undefined, limit: number) {
  return useQuery({
    queryKey: designKeys.list(search, cursor, limit),
    queryFn: () => apiFetch<DesignList>(`/api/designs?${listQuery(search, cursor, limit)}`),
    placeholderData: keepPreviousData,
  });
}

export function useDesign(designId: string | null) {
  return useQuery({
    queryKey: designKeys.detail(designId ?? ''),
    queryFn: () => apiFetch<Design>(`/api/designs/${id(designId ?? '')}`),
    enabled: designId !== null,
    refetchInterval: (query) => (isSlicing(query.state.data) ? SLICING_POLL_MS : false),
  });
}

/** Several designs at once (the ones just uploaded), seeded with what the upload returned. */
export function useDesignsById(designs: readonly Design[]) {
  return useQueries({
    queries: designs.map((design) => ({
      queryKey: designKeys.detail(design.id),
      queryFn: () => apiFetch<Design>(`/api/designs/${id(design.id)}`),
      initialData: design,
      refetchInterval: (query: { state: { data: Design | undefined } }) =>
        isSlicing(query.state.data) ? SLICING_POLL_MS : false,
    })),
  });
}

export function useProblemAreas(designId: string, enabled: boolean) {
  return useQuery({
    queryKey: designKeys.problemAreas(designId),
    queryFn: () => apiFetch<{ areas: ProblemArea[] }>(`/api/designs/${id(designId)}/problem-areas`),
    enabled,
    staleTime: Infinity,
  });
}

export function useRenameDesign() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ designId, name }: { designId: string; name: string }) =>
      apiFetch<Design>(`/api/designs/${id(designId)}`, { method: 'PATCH', json: { name } }),
    onSuccess: (design) => {
      queryClient.setQueryData(designKeys.detail(design.id), design);
      invalidateDesign(queryClient);
    },
  });
}

export function useDeleteDesign() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (designId: string) => apiFetch<void>(`/api/designs/${id(designId)}`, { method: 'DELETE' }),
    onSuccess: (_result, designId) => {
      queryClient.removeQueries({ queryKey: designKeys.detail(designId) });
      invalidateDesign(queryClient);
    },
  });
}

export function useCreatePrintConfig() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ designId, input }: { designId: string; input: PrintConfigInput }) =>
      apiFetch<PrintConfig>(`/api/designs/${id(designId)}/print-configs`, { method: 'POST', json: input }),
    onSuccess: (config) => invalidateDesign(queryClient, config.designId),
  });
}

export function useUpdatePrintConfig() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ configId, input }: { configId: string; input: Partial<PrintConfigInput> }) =>
      apiFetch<PrintConfig>(`/api/print-configs/${id(configId)}`, { method: 'PATCH', json: input }),
    onSuccess: (config) => invalidateDesign(queryClient, config.designId),
  });
}

export function useDeletePrintConfig() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ configId }: { configId: string; designId: string }) =>
      apiFetch<void>(`/api/print-configs/${id(configId)}`, { method: 'DELETE' }),
    onSuccess: (_result, { designId }) => invalidateDesign(queryClient, designId),
  });
}

/** A what-if quote for settings that are not saved (the caller debounces the input). */
export function useEstimateQuote(input: EstimateCostInput | null) {
  return useQuery({
    queryKey: designKeys.estimate(input ?? { filePath: '' }),
    queryFn: () => apiFetch<Quote>('/api/estimate-print-cost', { method: 'POST', json: input }),
    enabled: input !== null,
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
}

// ---------------------------------------------------------------------------------------------
// Upload: XMLHttpRequest rather than fetch, because only XHR reports upload progress.

export interface UploadCallbacks {
  /** Fraction of the file's bytes sent, 0..1. */
  onProgress(fraction: number): void;
  /** Every byte is sent; the server is now parsing and analysing the model. */
  onSent(): void;
}

export interface RunningUpload {
  readonly done: Promise<Design>;
  abort(): void;
}

export class UploadAbortedError extends Error {
  constructor() {
    super('Upload cancelled');
    this.name = 'UploadAbortedError';
  }
}

export function uploadDesign(file: File, callbacks: UploadCallbacks, name?: string): RunningUpload {
  const xhr = new XMLHttpRequest();
  const done = new Promise<Design>((resolve, reject) => {
    xhr.open('POST', '/api/designs');
    xhr.withCredentials = true;
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) callbacks.onProgress(event.loaded / event.total);
    };
    xhr.upload.onload = () => callbacks.onSent();
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as Design);
        } catch {
          reject(new ApiError('The server sent an unreadable answer', xhr.status));
        }
      } else {
        reject(new ApiError(uploadErrorText(xhr), xhr.status));
      }
    };
    xhr.onerror = () => reject(new ApiError('Network error: the upload did not reach the server', 0));
    xhr.onabort = () => reject(new UploadAbortedError());
    const form = new FormData();
    if (name) form.append('name', name);
    form.append('file', file, file.name);
    xhr.send(form);
  });
  return { done, abort: () => xhr.abort() };
}

/** Same rule as apiFetch: the server's `error` text, else the status text. */
function uploadErrorText(xhr: XMLHttpRequest): string {
  try {
    const body: unknown = JSON.parse(xhr.responseText);
    if (body && typeof body === 'object' && 'error' in body && typeof body.error === 'string' && body.error)
      return body.error;
  } catch {
    // Not JSON: fall through.
  }
  if (xhr.status === 413) return 'The file is larger than the server accepts';
  return xhr.statusText || `Upload failed (${xhr.status})`;
}

/** After an upload: every list of designs (the seller's and the admin's) is stale. */
export function invalidateDesignLists(queryClient: QueryClient) {
  invalidateDesign(queryClient);
}

// ---------------------------------------------------------------------------------------------
// Admin

export function useAdminDesigns(search: string, cursor: string | undefined, limit: number) {
  return useQuery({
    queryKey: designKeys.adminList(search, cursor, limit),
    queryFn: () => apiFetch<DesignList>(`/api/admin/designs?${listQuery(search, cursor, limit)}`),
    placeholderData: keepPreviousData,
  });
}

export function usePriceTable() {
  return useQuery({
    queryKey: designKeys.priceTable,
    queryFn: () => apiFetch<PriceTable>('/api/admin/price-table'),
  });
}

export function useSavePriceTable() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (table: PriceTable) =>
      apiFetch<PriceTable>('/api/admin/price-table', { method: 'PUT', json: table }),
    onSuccess: (table) => {
      queryClient.setQueryData(designKeys.priceTable, table);
      // Every estimate may change with the rates.
      void queryClient.invalidateQueries({ queryKey: designKeys.all });
      void queryClient.invalidateQueries({ queryKey: designKeys.adminLists });
    },
  });
}

export function useSetCostData() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CostDataInput) =>
      apiFetch<PrintConfig>('/api/admin/cost-data', { method: 'POST', json: input }),
    onSuccess: (config) => invalidateDesign(queryClient, config.designId),
  });
}

export function usePlaceholderCost3mf() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ designId, printConfigId }: { designId: string; printConfigId: string }) =>
      apiFetch<PrintConfig>('/api/admin/placeholder-cost-3mf', {
        method: 'POST',
        json: { filePath: designId, printConfigId },
      }),
    onSuccess: (config) => invalidateDesign(queryClient, config.designId),
  });
}

/** The design's mesh for the 3D viewer, as the server's compact binary (parsed by the viewer). */
export function useViewerMeshBytes(url: string) {
  return useQuery({
    queryKey: ['designs', 'viewer-mesh', url] as const,
    queryFn: async ({ signal }) => {
      const response = await fetch(url, { credentials: 'same-origin', signal });
      if (!response.ok)
        throw new ApiError(
          response.statusText || `Could not load the model (${response.status})`,
          response.status,
        );
      return response.arrayBuffer();
    },
    staleTime: Infinity,
    gcTime: 5 * 60_000,
  });
}
