import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  Printer,
  PrinterGroup,
  PrinterGroupInput,
  SlicerPrinterPresets,
  PrinterCreateInput,
  PrinterSpoolsInput,
  PrinterTestResult,
  PrinterUpdateInput,
} from '@layerline/contracts';
import { apiFetch } from './client.ts';
import { queryKeys } from './query-keys.ts';

/** The farm's printers (admins): docs/printers.md, "The printers table and the admin page". */
export function usePrinters() {
  return useQuery({
    queryKey: queryKeys.adminPrinters,
    queryFn: () => apiFetch<Printer[]>('/api/admin/printers'),
  });
}

/** Power groups (circuits): starts are staggered within each. */
const groupsKey = ['admin', 'printer-groups'] as const;

const printerUrl = (id: string, action = '') => `/api/admin/printers/${encodeURIComponent(id)}${action}`;

function usePrinterMutation<Input>(call: (input: Input) => Promise<Printer>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (saved) => {
      queryClient.setQueryData<Printer[]>(queryKeys.adminPrinters, (list) =>
        list
          ? list.some((p) => p.id === saved.id)
            ? list.map((p) => (p.id === saved.id ? saved : p))
            : [...list, saved]
          : list,
      );
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminPrinters });
      // A printer joining or leaving a group changes its count.
      void queryClient.invalidateQueries({ queryKey: groupsKey });
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminAuditAll });
    },
  });
}

export function useCreatePrinter() {
  return usePrinterMutation((input: PrinterCreateInput) =>
    apiFetch<Printer>('/api/admin/printers', { method: 'POST', json: input }),
  );
}

export function useUpdatePrinter() {
  return usePrinterMutation(({ id, input }: { id: string; input: PrinterUpdateInput }) =>
    apiFetch<Printer>(printerUrl(id), { method: 'PUT', json: input }),
  );
}

export function useSetPrinterStatus() {
  return usePrinterMutation(({ id, action }: { id: string; action: 'pause' | 'resume' | 'retire' }) =>
    apiFetch<Printer>(printerUrl(id, `/${action}`), { method: 'POST' }),
  );
}

export function useSetPrinterSpools() {
  return usePrinterMutation(({ id, input }: { id: string; input: PrinterSpoolsInput }) =>
    apiFetch<Printer>(printerUrl(id, '/spools'), { method: 'PUT', json: input }),
  );
}

/** Test connection: the printer's answer or its failure in words; the list is re-read (last state). */
export function useTestPrinter() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<PrinterTestResult>(printerUrl(id, '/test'), { method: 'POST' }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.adminPrinters }),
  });
}

/** A Bambu Lab printer's certificate is trusted again (replaced or reset printer): the next contact pins it. */
export function useTrustPrinterCertificate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<Printer>(printerUrl(id, '/trust-certificate'), { method: 'POST' }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminPrinters });
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminAuditAll });
    },
  });
}

/** A person looked at a printer the farm flagged: it takes jobs again (the board re-reads too). */
export function useClearPrinterAttention() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<Printer>(printerUrl(id, '/clear-attention'), { method: 'POST' }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminPrinters });
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminProductionBoard });
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminAuditAll });
    },
  });
}

export function usePrinterGroups() {
  return useQuery({
    queryKey: groupsKey,
    queryFn: () => apiFetch<PrinterGroup[]>('/api/admin/printer-groups'),
  });
}

function useGroupMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: groupsKey });
      // A deleted group leaves its printers ungrouped.
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminPrinters });
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminAuditAll });
    },
  });
}

const groupUrl = (id: string) => `/api/admin/printer-groups/${encodeURIComponent(id)}`;

export function useSavePrinterGroup() {
  return useGroupMutation(({ id, input }: { id: string | null; input: PrinterGroupInput }) =>
    id === null
      ? apiFetch<PrinterGroup>('/api/admin/printer-groups', { method: 'POST', json: input })
      : apiFetch<PrinterGroup>(groupUrl(id), { method: 'PUT', json: input }),
  );
}

export function useDeletePrinterGroup() {
  return useGroupMutation((id: string) => apiFetch<void>(groupUrl(id), { method: 'DELETE' }));
}

const NO_PRESETS: SlicerPrinterPresets = { available: false, presets: [] };

/**
 * PrusaSlicer's bundled printer presets; a failed read (no endpoint, no PrusaSlicer) is "none
 * available": the dialog still offers the generic profile and the operator's own G-code.
 */
export function useSlicerPrinterPresets() {
  return useQuery({
    queryKey: ['admin', 'slicer', 'printer-presets'] as const,
    queryFn: () =>
      apiFetch<SlicerPrinterPresets>('/api/admin/slicer/printer-presets').catch(() => NO_PRESETS),
    staleTime: 5 * 60_000,
  });
}
