import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { MAX_PRINT_ATTEMPTS, qcInputSchema, type PrintJob } from '@layerline/contracts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { useQcJob } from '../../../api/production.ts';
import { MaterialColour } from './ColourSwatch.tsx';
import { attemptLabel, type ColourInfo } from './production-format.ts';

/** Asks why the part failed QC; the server's refusal is shown in the dialog, in its words. */
function FailDialog({ job, onClose }: { job: PrintJob; onClose(): void }) {
  const qc = useQcJob();
  const { showToast } = useToast();
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const last = job.attempt >= MAX_PRINT_ATTEMPTS;

  const submit = () => {
    const parsed = qcInputSchema.safeParse({ result: 'fail', reason });
    if (!parsed.success) {
      setProblem(parsed.error.issues[0]?.message ?? 'Say why the part failed QC');
      return;
    }
    setProblem(null);
    qc.mutate(
      { jobId: job.id, input: parsed.data },
      {
        onSuccess: () => {
          showToast(
            last
              ? `${job.partName} failed QC; the order goes on hold`
              : `${job.partName} failed QC; a reprint is queued`,
            'info',
          );
          onClose();
        },
        onError: (error) => setProblem(error.message),
      },
    );
  };

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="qc-fail-title">
      <DialogTitle id="qc-fail-title">Fail QC: {job.partName}</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          {last
            ? `This was attempt ${job.attempt} of ${MAX_PRINT_ATTEMPTS}: failing it puts order ${job.orderNumber} on hold, and the part is not reprinted again by itself.`
            : `Failing it queues a reprint of this part (attempt ${job.attempt + 1} of ${MAX_PRINT_ATTEMPTS}).`}
        </DialogContentText>
        <TextField
          autoFocus
          fullWidth
          multiline
          minRows={2}
          required
          label="Reason"
          placeholder="Layer shift at 12 mm, stringing on the rim…"
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
        <Button onClick={onClose} disabled={qc.isPending}>
          Cancel
        </Button>
        <Button color="error" variant="contained" onClick={submit} disabled={qc.isPending}>
          Fail QC
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** The parts printed and waiting for a person to look at them: pass, or fail with a reason. */
export function QcPanel({
  jobs,
  colourOf,
}: {
  jobs: PrintJob[];
  colourOf(material: string, colour: string): ColourInfo;
}) {
  const qc = useQcJob();
  const { showToast } = useToast();
  const [failing, setFailing] = useState<PrintJob | null>(null);

  if (jobs.length === 0) return <Alert severity="info">Nothing waiting for QC.</Alert>;

  const pass = (job: PrintJob) =>
    qc.mutate(
      { jobId: job.id, input: { result: 'pass' } },
      {
        onSuccess: () => showToast(`${job.partName} passed QC`),
        onError: (error) => showToast(error.message, 'error'),
      },
    );

  return (
    <Stack spacing={1}>
      {jobs.map((job) => (
        <Box
          key={job.id}
          data-testid="qc-job"
          data-job-id={job.id}
          sx={{
            display: 'flex',
            flexWrap: 'wrap',
            gap: 1.5,
            alignItems: 'center',
            justifyContent: 'space-between',
            p: 1.5,
            border: 1,
            borderColor: 'divider',
            borderRadius: 1,
          }}
        >
          <Box sx={{ minWidth: 0 }}>
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {job.partName}
              {job.copy > 1 ? ` (copy ${job.copy})` : ''}
            </Typography>
            <Typography variant="caption" color="text.secondary" component="div">
              Order {job.orderNumber} · {job.sellerName}
              {job.printerName ? ` · printed on ${job.printerName}` : ''}
            </Typography>
            <Stack direction="row" spacing={1} sx={{ mt: 0.5, alignItems: 'center' }}>
              <MaterialColour material={job.material} colour={colourOf(job.material, job.colour)} />
              {job.attempt > 1 ? (
                <Chip size="small" color="warning" label={attemptLabel(job.attempt)} />
              ) : null}
            </Stack>
            {job.qcNote ? (
              <Alert severity="warning" sx={{ mt: 1, py: 0 }} data-testid="qc-note">
                {job.qcNote}
              </Alert>
            ) : null}
          </Box>
          <Stack direction="row" spacing={1}>
            <Button variant="contained" color="success" disabled={qc.isPending} onClick={() => pass(job)}>
              Pass
            </Button>
            <Button variant="outlined" color="error" disabled={qc.isPending} onClick={() => setFailing(job)}>
              Fail
            </Button>
          </Stack>
        </Box>
      ))}
      {failing ? <FailDialog key={failing.id} job={failing} onClose={() => setFailing(null)} /> : null}
    </Stack>
  );
}
