import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import TextField from '@mui/material/TextField';
import { skipPartInputSchema, type PrintJob } from '@layerline/contracts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { useSkipPart } from '../../../api/production.ts';

/**
 * Asks why a part of a plate failed mid-print (issue 22); the printer then skips it and prints the
 * others. The server's refusal (a printer that cannot skip) is shown in the dialog, in its words.
 */
export function SkipPartDialog({ job, onClose }: { job: PrintJob; onClose(): void }) {
  const skip = useSkipPart();
  const { showToast } = useToast();
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const submit = () => {
    const parsed = skipPartInputSchema.safeParse({ reason });
    if (!parsed.success) {
      setProblem(parsed.error.issues[0]?.message ?? 'Say why the part failed');
      return;
    }
    setProblem(null);
    skip.mutate(
      { jobId: job.id, input: parsed.data },
      {
        onSuccess: () => {
          showToast(`${job.partName} is skipped; the rest of the plate prints on and a reprint is queued`, 'info');
          onClose();
        },
        onError: (error) => setProblem(error.message),
      },
    );
  };

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="skip-part-title">
      <DialogTitle id="skip-part-title">Skip a failed part: {job.partName}</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          {job.printerName ?? 'The printer'} stops printing this part and finishes the others on its plate. The part
          is reprinted by itself, and the bed must be cleared after the plate.
        </DialogContentText>
        <TextField
          autoFocus
          fullWidth
          required
          label="Reason"
          placeholder="Came loose from the bed, spaghetti…"
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          error={problem !== null}
          slotProps={{ htmlInput: { maxLength: 500 } }}
        />
        {problem ? (
          <Alert severity="error" sx={{ mt: 2 }}>
            {problem}
          </Alert>
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={skip.isPending}>
          Cancel
        </Button>
        <Button color="error" variant="contained" onClick={submit} disabled={skip.isPending}>
          Skip this part
        </Button>
      </DialogActions>
    </Dialog>
  );
}
