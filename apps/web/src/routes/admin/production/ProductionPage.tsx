import { useCallback, useMemo, useState, type ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import LinearProgress from '@mui/material/LinearProgress';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import {
  PRINT_JOB_STATUS_LABELS,
  type BoardPrinter,
  type HeldOrder,
  type PrintJob,
  type PrintJobStatus,
} from '@layerline/contracts';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { usePrinters } from '../../../api/printers.ts';
import { useConfirmBedClear, useProductionBoard } from '../../../api/production.ts';
import { PackingPanel } from './PackingPanel.tsx';
import { PrinterCard } from './PrinterCard.tsx';
import { QcPanel } from './QcPanel.tsx';
import { QueueTable } from './QueueTable.tsx';
import { ShippingReadyPanel } from './ShippingReadyPanel.tsx';
import { ShippingWritebacksPanel } from './ShippingWritebacksPanel.tsx';
import { SkipPartDialog } from './SkipPartDialog.tsx';
import { SpoolChange } from './SpoolChange.tsx';
import {
  attemptLabel,
  colourOf as colourFrom,
  formatDuration,
  percent,
  progressLabel,
  type ColourInfo,
} from './production-format.ts';

const ACTIVE_COLOUR: Partial<Record<PrintJobStatus, 'default' | 'info' | 'primary'>> = {
  assigned: 'default',
  uploading: 'info',
  printing: 'primary',
};

/** A titled block of the board, with how many things are in it. */
function Section({
  title,
  count,
  testId,
  children,
}: {
  title: string;
  count?: number;
  testId: string;
  children: ReactNode;
}) {
  return (
    <Paper variant="outlined" component="section" aria-label={title} data-testid={testId} sx={{ p: 2 }}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1.5 }}>
        <Typography variant="h6" component="h2">
          {title}
        </Typography>
        {count !== undefined ? <Chip size="small" label={count} data-testid={`${testId}-count`} /> : null}
      </Stack>
      {children}
    </Paper>
  );
}

/** The parts of each plate of several on the printers (issue 22), by the plate's lead, in plate order. */
function platesOf(active: readonly PrintJob[]): Map<string, PrintJob[]> {
  const plates = new Map<string, PrintJob[]>();
  for (const job of active) {
    if (!job.plate) continue;
    const parts = plates.get(job.plate.leadId) ?? [];
    parts.push(job);
    plates.set(job.plate.leadId, parts);
  }
  for (const parts of plates.values()) parts.sort((a, b) => a.plate!.index - b.plate!.index);
  return plates;
}

function ActiveJobs({
  jobs,
  colourOf,
}: {
  jobs: PrintJob[];
  colourOf(material: string, colour: string): ColourInfo;
}) {
  const plates = platesOf(jobs);
  const [skipping, setSkipping] = useState<PrintJob | null>(null);
  if (jobs.length === 0) return <Alert severity="info">Nothing printing.</Alert>;
  return (
    <TableContainer>
      <Table size="small" aria-label="Active jobs">
        <TableHead>
          <TableRow>
            <TableCell>Part</TableCell>
            <TableCell>Order</TableCell>
            <TableCell>Printer</TableCell>
            <TableCell>Status</TableCell>
            <TableCell sx={{ minWidth: 200 }}>Progress</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {jobs.map((job) => (
            <TableRow key={job.id} data-testid="active-job" data-job-id={job.id}>
              <TableCell>
                <Typography variant="body2" sx={{ fontWeight: 600 }}>
                  {job.partName}
                </Typography>
                {job.attempt > 1 ? (
                  <Typography variant="caption" color="warning.main">
                    {attemptLabel(job.attempt)}
                  </Typography>
                ) : null}
                {job.spoolChange ? <SpoolChange job={job} colourOf={colourOf} /> : null}
                {job.plate && (plates.get(job.plate.leadId)?.length ?? 0) > 1 ? (
                  <Typography variant="caption" color="text.secondary" component="div" data-testid="plate-position">
                    Part {job.plate.index + 1} of {plates.get(job.plate.leadId)!.length} on one plate
                    {job.status === 'printing' ? (
                      <Button size="small" color="error" sx={{ ml: 1, py: 0 }} onClick={() => setSkipping(job)}>
                        Skip
                      </Button>
                    ) : null}
                  </Typography>
                ) : null}
              </TableCell>
              <TableCell>{job.orderNumber}</TableCell>
              <TableCell>{job.printerName ?? '—'}</TableCell>
              <TableCell>
                <Chip
                  size="small"
                  color={ACTIVE_COLOUR[job.status] ?? 'default'}
                  label={PRINT_JOB_STATUS_LABELS[job.status]}
                />
              </TableCell>
              <TableCell>
                {job.status === 'printing' ? (
                  <>
                    <LinearProgress
                      variant="determinate"
                      value={percent(job.progress)}
                      sx={{ height: 6, borderRadius: 3 }}
                    />
                    <Typography variant="caption" color="text.secondary">
                      {progressLabel(job.progress, job.secondsLeft)}
                    </Typography>
                  </>
                ) : (
                  <Typography variant="caption" color="text.secondary">
                    {formatDuration(job.printSeconds)} to print
                  </Typography>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
        {skipping ? <SkipPartDialog job={skipping} onClose={() => setSkipping(null)} /> : null}
      </Table>
    </TableContainer>
  );
}

function OnHold({ orders }: { orders: HeldOrder[] }) {
  if (orders.length === 0) return <Alert severity="success">No order on hold.</Alert>;
  return (
    <Stack spacing={1}>
      {orders.map((order) => (
        <Alert
          key={order.orderId}
          severity="warning"
          data-testid="held-order"
          action={
            <Button
              component={RouterLink}
              to={`/admin-orders?order=${encodeURIComponent(order.orderId)}`}
              color="inherit"
              size="small"
              sx={{ whiteSpace: 'nowrap' }}
            >
              Open order
            </Button>
          }
        >
          <Typography variant="body2" sx={{ fontWeight: 600 }}>
            Order {order.orderNumber} · {order.sellerName}
          </Typography>
          {order.holdReason}
        </Alert>
      ))}
    </Stack>
  );
}

/** /admin-production: the print farm at work — printers, queue, QC and packing (docs/print-farm.md). */
export default function ProductionPage() {
  const board = useProductionBoard();
  const printers = usePrinters();
  const confirmBed = useConfirmBedClear();
  const { showToast } = useToast();
  const data = board.data;
  // Orders whose shipping panel is open: one just packed opens by itself.
  const [shippingOpen, setShippingOpen] = useState<string[]>([]);
  const openShipping = useCallback(
    (orderId: string) => setShippingOpen((current) => (current.includes(orderId) ? current : [...current, orderId])),
    [],
  );
  const toggleShipping = useCallback(
    (orderId: string) =>
      setShippingOpen((current) =>
        current.includes(orderId) ? current.filter((id) => id !== orderId) : [...current, orderId],
      ),
    [],
  );

  // Every spool the farm knows (loaded or waiting beside a printer), to paint a colour name's swatch.
  const spools = useMemo(
    () => [
      ...(data?.printers.flatMap((p) => (p.loadedSpool ? [p.loadedSpool] : [])) ?? []),
      ...(printers.data?.flatMap((p) => p.spools) ?? []),
    ],
    [data?.printers, printers.data],
  );
  const colourOf = useCallback(
    (material: string, colour: string) => colourFrom(material, colour, spools),
    [spools],
  );
  const jobsById = useMemo(
    () => new Map((data ? [...data.active, ...data.awaitingQc] : []).map((job) => [job.id, job])),
    [data],
  );
  const plates = useMemo(() => platesOf(data?.active ?? []), [data]);

  const confirmBedClear = (printer: BoardPrinter) =>
    confirmBed.mutate(printer.id, {
      onSuccess: () => showToast(`${printer.name}: bed confirmed clear`),
      onError: (error) => showToast(error.message, 'error'),
    });

  return (
    <Box>
      <PageHeading
        title="Production"
        subtitle="The print farm at work: printers, the queue, QC and packing. Updates by itself."
        actions={
          data?.autopilot ? (
            <Chip
              color="info"
              label="Autopilot on"
              data-testid="autopilot"
              title="The farm autopilot confirms beds, QC and packing by itself (FARM_AUTOPILOT)"
            />
          ) : null
        }
      />
      {board.error ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          {board.error.message}
          {data ? ' (showing the board as it was last read)' : ''}
        </Alert>
      ) : null}
      {board.isPending ? <CircularProgress aria-label="Loading the board" /> : null}
      {data ? (
        <Stack spacing={2.5}>
          <Section title="Printers" count={data.printers.length} testId="board-printers">
            {data.printers.length === 0 ? (
              <Alert severity="info">
                No printer yet — add one on{' '}
                <Link component={RouterLink} to="/admin-printers">
                  Printers
                </Link>
                .
              </Alert>
            ) : (
              <Box
                sx={{
                  display: 'grid',
                  gap: 1.5,
                  gridTemplateColumns: 'repeat(auto-fill, minmax(250px, 1fr))',
                }}
              >
                {data.printers.map((printer) => (
                  <PrinterCard
                    key={printer.id}
                    printer={printer}
                    job={printer.jobId ? jobsById.get(printer.jobId) : undefined}
                    plateParts={plates.get(jobsById.get(printer.jobId ?? '')?.plate?.leadId ?? '') ?? []}
                    colourOf={colourOf}
                    onConfirmBedClear={confirmBedClear}
                    confirming={confirmBed.isPending && confirmBed.variables === printer.id}
                  />
                ))}
              </Box>
            )}
          </Section>

          <Section title="Queue" count={data.queuedTotal} testId="board-queue">
            <QueueTable
              queued={data.queued}
              total={data.queuedTotal}
              printers={data.printers}
              colourOf={colourOf}
            />
          </Section>

          <Section title="Printing now" count={data.active.length} testId="board-active">
            <ActiveJobs jobs={data.active} colourOf={colourOf} />
          </Section>

          <Section title="Quality check" count={data.awaitingQc.length} testId="board-qc">
            <QcPanel jobs={data.awaitingQc} colourOf={colourOf} />
          </Section>

          <Section title="Packing" count={data.awaitingPacking.length} testId="board-packing">
            <PackingPanel orders={data.awaitingPacking} onPacked={openShipping} />
          </Section>

          <Section title="Ready to ship" testId="board-shipping">
            <ShippingReadyPanel open={shippingOpen} onToggle={toggleShipping} />
          </Section>

          <Section title="On hold" count={data.onHold.length} testId="board-on-hold">
            <OnHold orders={data.onHold} />
          </Section>

          <Section title="Tracking write-backs that failed" testId="board-writebacks">
            <ShippingWritebacksPanel />
          </Section>
        </Stack>
      ) : null}
    </Box>
  );
}
