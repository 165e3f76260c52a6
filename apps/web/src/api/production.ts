import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  MoveInput,
  PackInput,
  PinInput,
  PrintJob,
  ProductionBoard,
  QcInput,
  SkipPartInput,
} from '@layerline/contracts';
import { apiFetch } from './client.ts';
import { orderKeys } from './orders.ts';
import { queryKeys } from './query-keys.ts';

/** How often the board is read again while it is open: printers print, jobs move, without a reload. */
export const BOARD_REFRESH_MS = 2000;

/** The production board (admins): printers, queue, active jobs, QC, packing and holds (docs/print-farm.md). */
export function useProductionBoard() {
  return useQuery({
    queryKey: queryKeys.adminProductionBoard,
    queryFn: () => apiFetch<ProductionBoard>('/api/admin/production/board'),
    refetchInterval: BOARD_REFRESH_MS,
  });
}

const productionUrl = (kind: 'printers' | 'jobs' | 'orders', id: string, action: string) =>
  `/api/admin/production/${kind}/${encodeURIComponent(id)}/${action}`;

/** The packing slip of an order as a PDF (opened in a new tab), with the message printed on it. */
export function packingSlipUrl(orderId: string, message: string): string {
  const base = productionUrl('orders', orderId, 'packing-slip.pdf');
  const trimmed = message.trim();
  return trimmed ? `${base}?${new URLSearchParams({ message: trimmed }).toString()}` : base;
}

/** Every production write re-reads the board (and the orders and printers, which it may have changed). */
function useBoardMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    // The board is awaited, so a caller's own onSettled runs once the fresh board is in.
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: orderKeys.all });
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminPrinters });
      return queryClient.invalidateQueries({ queryKey: queryKeys.adminProductionBoard });
    },
  });
}

/** A person confirms the printer's bed is clear, so it may take the next job. */
export function useConfirmBedClear() {
  return useBoardMutation((printerId: string) =>
    apiFetch<void>(productionUrl('printers', printerId, 'bed-clear'), { method: 'POST' }),
  );
}

/** Pass a printed part, or fail it with a reason (the server queues the reprint or holds the order). */
export function useQcJob() {
  return useBoardMutation(({ jobId, input }: { jobId: string; input: QcInput }) =>
    apiFetch<PrintJob>(productionUrl('jobs', jobId, 'qc'), { method: 'POST', json: input }),
  );
}

/** A part of a plate failing mid-print: its printer skips it and prints the rest; it is reprinted alone. */
export function useSkipPart() {
  return useBoardMutation(({ jobId, input }: { jobId: string; input: SkipPartInput }) =>
    apiFetch<PrintJob>(productionUrl('jobs', jobId, 'skip'), { method: 'POST', json: input }),
  );
}

/** Pin a queued job to a printer (null: any printer). */
export function usePinJob() {
  return useBoardMutation(({ jobId, input }: { jobId: string; input: PinInput }) =>
    apiFetch<PrintJob>(productionUrl('jobs', jobId, 'pin'), { method: 'POST', json: input }),
  );
}

/** Reorder the queue: the job goes just before `beforeJobId` (null: to the end). */
export function useMoveJob() {
  return useBoardMutation(({ jobId, input }: { jobId: string; input: MoveInput }) =>
    apiFetch<PrintJob>(productionUrl('jobs', jobId, 'move'), { method: 'POST', json: input }),
  );
}

/** The operator loaded the spool the job's `spoolChange` asks for. */
export function useSpoolLoaded() {
  return useBoardMutation((jobId: string) =>
    apiFetch<PrintJob>(productionUrl('jobs', jobId, 'spool-loaded'), { method: 'POST' }),
  );
}

/** Packing confirmed: the order becomes packed. */
export function usePackOrder() {
  return useBoardMutation(({ orderId, input }: { orderId: string; input: PackInput }) =>
    apiFetch<void>(productionUrl('orders', orderId, 'pack'), { method: 'POST', json: input }),
  );
}
