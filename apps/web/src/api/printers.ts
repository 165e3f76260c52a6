import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  Printer,
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
