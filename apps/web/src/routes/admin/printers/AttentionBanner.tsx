import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import { useClearPrinterAttention } from '../../../api/printers.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';

/**
 * The farm's flag on a printer, in its words: no job goes to the printer until a person has looked
 * and says it may take jobs again. Shown on the printers page and on the production board.
 */
export function AttentionBanner({
  printerId,
  printerName,
  attention,
  compact = false,
}: {
  printerId: string;
  printerName: string;
  attention: { reason: string; since: string | null };
  /** In a narrow card the button goes under the words instead of beside them. */
  compact?: boolean;
}) {
  const clear = useClearPrinterAttention();
  const { showToast } = useToast();
  const since = attention.since ? new Date(attention.since).toLocaleString('en-GB') : null;
  const resolve = (
    <Button
      color="inherit"
      size="small"
      disabled={clear.isPending}
      onClick={() =>
        clear.mutate(printerId, {
          onSuccess: () => showToast(`${printerName} takes jobs again`),
          onError: (error) => showToast(error.message, 'error'),
        })
      }
    >
      Resolved — take jobs again
    </Button>
  );
  return (
    <Alert
      severity="warning"
      data-testid="printer-attention"
      sx={{ py: 0 }}
      action={compact ? undefined : resolve}
    >
      Needs a person: {attention.reason}
      {since ? ` (since ${since})` : ''}. No jobs go to it until then.
      {compact ? <div>{resolve}</div> : null}
    </Alert>
  );
}
