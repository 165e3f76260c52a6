import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { PRINT_JOB_STATUS_LABELS, type BoardPrinter, type PrintJob } from '@layerline/contracts';
import { AttentionBanner } from '../printers/AttentionBanner.tsx';
import { PRINTER_STATE_COLOUR, PRINTER_STATE_LABEL } from '../printers/printer-state-labels.ts';
import { ColourDot } from './ColourSwatch.tsx';
import { SpoolChange } from './SpoolChange.tsx';
import { bedClearable, clearingLabel, percent, progressLabel, type ColourInfo } from './production-format.ts';

function StateChip({ printer }: { printer: BoardPrinter }) {
  if (printer.connectionLost) {
    return <Chip size="small" color="error" label="Connection lost" data-testid="connection-lost" />;
  }
  if (!printer.state) return <Chip size="small" variant="outlined" label="Not polled yet" />;
  return (
    <Chip
      size="small"
      color={PRINTER_STATE_COLOUR[printer.state.state]}
      label={PRINTER_STATE_LABEL[printer.state.state]}
    />
  );
}

function JobOnPrinter({ printer, job }: { printer: BoardPrinter; job: PrintJob | undefined }) {
  if (!printer.jobId) {
    return (
      <Typography variant="body2" color="text.secondary">
        No job on it
      </Typography>
    );
  }
  if (!job) {
    return (
      <Typography variant="body2" color="text.secondary">
        A job is on it
      </Typography>
    );
  }
  const progress = job.progress ?? printer.state?.progress ?? null;
  const secondsLeft = job.secondsLeft ?? printer.state?.secondsLeft ?? null;
  return (
    <Box data-testid="printer-job">
      <Typography variant="body2" sx={{ fontWeight: 600 }} noWrap title={job.partName}>
        {job.partName}
      </Typography>
      <Typography variant="caption" color="text.secondary" component="div">
        Order {job.orderNumber} · {PRINT_JOB_STATUS_LABELS[job.status]}
      </Typography>
      {job.status === 'printing' ? (
        <>
          <LinearProgress
            variant="determinate"
            value={percent(progress)}
            sx={{ mt: 1, height: 6, borderRadius: 3 }}
            aria-label={`Progress of ${job.partName}`}
          />
          <Typography variant="caption" color="text.secondary">
            {progressLabel(progress, secondsLeft)}
          </Typography>
        </>
      ) : null}
    </Box>
  );
}

/** The parts printing together on a plate of several (issue 22), in plate order. */
function PlateParts({ parts }: { parts: readonly PrintJob[] }) {
  return (
    <Box data-testid="printer-plate">
      <Typography variant="caption" color="text.secondary" component="div" sx={{ fontWeight: 600 }}>
        Plate of {parts.length} parts
      </Typography>
      <Box component="ol" sx={{ m: 0, pl: 2.5 }}>
        {parts.map((part) => (
          <Typography key={part.id} component="li" variant="caption" data-testid="plate-part" noWrap title={part.partName}>
            {part.partName} · order {part.orderNumber}
          </Typography>
        ))}
      </Box>
    </Box>
  );
}

/** One printer of the board: its state, the job on it, its spool and whether its bed is clear. */
export function PrinterCard({
  printer,
  job,
  plateParts = [],
  colourOf,
  onConfirmBedClear,
  confirming,
}: {
  printer: BoardPrinter;
  job: PrintJob | undefined;
  /** Every part on the job's plate when it shares one (the job too); empty when it prints alone. */
  plateParts?: readonly PrintJob[];
  colourOf(material: string, colour: string): ColourInfo;
  onConfirmBedClear(printer: BoardPrinter): void;
  confirming: boolean;
}) {
  const spool = printer.loadedSpool;
  return (
    <Card
      variant="outlined"
      data-testid={`board-printer-${printer.name}`}
      sx={{
        height: '100%',
        opacity: printer.adminStatus === 'retired' ? 0.6 : 1,
        borderColor: printer.connectionLost ? 'error.main' : undefined,
      }}
    >
      <CardContent sx={{ display: 'flex', flexDirection: 'column', gap: 1.25 }}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start', justifyContent: 'space-between' }}>
          <Box sx={{ minWidth: 0 }}>
            <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700, lineHeight: 1.3 }} noWrap>
              {printer.name}
            </Typography>
            <Typography variant="caption" color="text.secondary" component="div">
              {printer.model || 'Printer'} · {printer.nozzleMm} mm nozzle
            </Typography>
          </Box>
          <Stack spacing={0.5} sx={{ alignItems: 'flex-end' }}>
            <StateChip printer={printer} />
            {printer.adminStatus !== 'active' ? (
              <Chip size="small" variant="outlined" color="warning" label={printer.adminStatus} />
            ) : null}
          </Stack>
        </Stack>

        {printer.connectionLost ? (
          <Alert severity="error" sx={{ py: 0 }}>
            Connection lost{printer.lastError ? `: ${printer.lastError}` : ''}
          </Alert>
        ) : printer.state?.errorText ? (
          <Alert severity="warning" sx={{ py: 0 }}>
            {printer.state.errorText}
          </Alert>
        ) : null}

        {printer.attention ? (
          <AttentionBanner
            printerId={printer.id}
            printerName={printer.name}
            attention={printer.attention}
            compact
          />
        ) : null}

        <JobOnPrinter printer={printer} job={job} />
        {plateParts.length > 1 ? <PlateParts parts={plateParts} /> : null}
        {job?.spoolChange ? <SpoolChange job={job} colourOf={colourOf} /> : null}

        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          {spool ? (
            <>
              <ColourDot swatch={{ kind: 'hex', hex: spool.colourHex }} />
              <Typography variant="body2" noWrap>
                {spool.material} {spool.colourName} · {spool.gramsLeft.toLocaleString('en-US')} g
              </Typography>
            </>
          ) : (
            <Typography variant="body2" color="text.secondary">
              No spool loaded
            </Typography>
          )}
        </Stack>

        <Stack
          direction="row"
          spacing={1}
          useFlexGap
          sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap' }}
        >
          <Chip
            size="small"
            variant="outlined"
            color={printer.clearing.clearsItself ? 'info' : 'default'}
            label={clearingLabel(printer.clearing)}
            title={
              printer.clearing.clearsItself
                ? 'Continuous printing: after a clean finish the next plate starts without a person; a failed, cancelled or unconfirmed print, or the cap of plates, stops it for a person'
                : 'Each print waits for someone to confirm the bed clear'
            }
          />
          {printer.jobId ? null : printer.bedConfirmedClear ? (
            <Chip size="small" variant="outlined" color="success" label="Bed clear" />
          ) : (
            <Chip size="small" variant="outlined" color="warning" label="Bed clear? Not confirmed" />
          )}
          {bedClearable(printer) ? (
            <Button
              size="small"
              variant="contained"
              disabled={confirming}
              onClick={() => onConfirmBedClear(printer)}
            >
              Confirm bed clear
            </Button>
          ) : null}
        </Stack>
      </CardContent>
    </Card>
  );
}
