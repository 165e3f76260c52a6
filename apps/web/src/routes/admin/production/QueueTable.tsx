import { useState, type DragEvent } from 'react';
import Alert from '@mui/material/Alert';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import ArrowDownwardIcon from '@mui/icons-material/ArrowDownward';
import ArrowUpwardIcon from '@mui/icons-material/ArrowUpward';
import DragIndicatorIcon from '@mui/icons-material/DragIndicator';
import type { BoardPrinter, PrintJob } from '@layerline/contracts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { useMoveJob, usePinJob } from '../../../api/production.ts';
import { MaterialColour } from './ColourSwatch.tsx';
import { SpoolChange } from './SpoolChange.tsx';
import {
  attemptLabel,
  formatDuration,
  formatSize,
  moveTarget,
  reorderQueue,
  type ColourInfo,
} from './production-format.ts';

const DRAG_TYPE = 'application/x-layerline-job';

/**
 * The queue in the order the dispatcher considers it: drag a row (or use the arrows) to move a job,
 * pin a job to one printer. A move shows at once and is undone if the server refuses it.
 */
export function QueueTable({
  queued,
  total,
  printers,
  colourOf,
}: {
  queued: PrintJob[];
  total: number;
  printers: BoardPrinter[];
  colourOf(material: string, colour: string): ColourInfo;
}) {
  const move = useMoveJob();
  const pin = usePinJob();
  const { showToast } = useToast();
  const [dragged, setDragged] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  const [pending, setPending] = useState<{ jobId: string; beforeJobId: string | null } | null>(null);

  const rows = pending ? reorderQueue(queued, pending.jobId, pending.beforeJobId) : queued;
  const ids = rows.map((j) => j.id);
  const more = total > queued.length;
  const pinnable = printers.filter((p) => p.adminStatus !== 'retired');

  const runMove = (jobId: string, target: { beforeJobId: string | null } | undefined) => {
    if (!target) return;
    const next = { jobId, beforeJobId: target.beforeJobId };
    setPending(next);
    move.mutate(
      { jobId, input: { beforeJobId: target.beforeJobId } },
      {
        onError: (error) => showToast(error.message, 'error'),
        onSettled: () => setPending((current) => (current === next ? null : current)),
      },
    );
  };

  const drop = (event: DragEvent, targetId: string) => {
    event.preventDefault();
    const jobId = event.dataTransfer.getData(DRAG_TYPE) || dragged;
    setDragged(null);
    setOver(null);
    if (jobId) runMove(jobId, moveTarget(ids, jobId, targetId, more));
  };

  const step = (jobId: string, by: -1 | 1) => {
    const index = ids.indexOf(jobId);
    const target = ids[index + by];
    if (target) runMove(jobId, moveTarget(ids, jobId, target, more));
  };

  const setPin = (job: PrintJob, printerId: string) =>
    pin.mutate(
      { jobId: job.id, input: { printerId: printerId || null } },
      {
        onSuccess: () =>
          showToast(
            printerId
              ? `${job.partName} pinned to ${printers.find((p) => p.id === printerId)?.name ?? 'the printer'}`
              : `${job.partName} may print on any printer`,
          ),
        onError: (error) => showToast(error.message, 'error'),
      },
    );

  if (rows.length === 0) {
    return <Alert severity="info">Nothing queued.</Alert>;
  }

  return (
    <TableContainer>
      <Table size="small" aria-label="Queue">
        <TableHead>
          <TableRow>
            <TableCell padding="checkbox" />
            <TableCell>Part</TableCell>
            <TableCell>Order</TableCell>
            <TableCell>Material</TableCell>
            <TableCell>Print time · size</TableCell>
            <TableCell>Attempt</TableCell>
            <TableCell sx={{ minWidth: 160 }}>Pin to printer</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((job, index) => (
            <TableRow
              key={job.id}
              data-testid="queue-row"
              data-job-id={job.id}
              draggable
              onDragStart={(event) => {
                event.dataTransfer.setData(DRAG_TYPE, job.id);
                event.dataTransfer.effectAllowed = 'move';
                setDragged(job.id);
              }}
              onDragEnd={() => {
                setDragged(null);
                setOver(null);
              }}
              onDragOver={(event) => {
                event.preventDefault();
                event.dataTransfer.dropEffect = 'move';
                if (over !== job.id) setOver(job.id);
              }}
              onDrop={(event) => drop(event, job.id)}
              sx={{
                cursor: 'grab',
                opacity: dragged === job.id ? 0.4 : 1,
                outline: over === job.id && dragged !== job.id ? 2 : 0,
                outlineColor: 'primary.main',
                outlineOffset: -2,
              }}
            >
              <TableCell padding="checkbox">
                <Stack direction="row" sx={{ alignItems: 'center' }}>
                  <DragIndicatorIcon fontSize="small" color="action" aria-hidden />
                  <Stack>
                    <Tooltip title="Move up">
                      <span>
                        <IconButton
                          size="small"
                          aria-label={`Move ${job.partName} up`}
                          disabled={index === 0 || move.isPending}
                          onClick={() => step(job.id, -1)}
                          sx={{ p: 0 }}
                        >
                          <ArrowUpwardIcon sx={{ fontSize: 16 }} />
                        </IconButton>
                      </span>
                    </Tooltip>
                    <Tooltip title="Move down">
                      <span>
                        <IconButton
                          size="small"
                          aria-label={`Move ${job.partName} down`}
                          disabled={index === rows.length - 1 || move.isPending}
                          onClick={() => step(job.id, 1)}
                          sx={{ p: 0 }}
                        >
                          <ArrowDownwardIcon sx={{ fontSize: 16 }} />
                        </IconButton>
                      </span>
                    </Tooltip>
                  </Stack>
                </Stack>
              </TableCell>
              <TableCell sx={{ maxWidth: 280 }}>
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <Typography variant="body2" sx={{ fontWeight: 600 }} noWrap title={job.partName}>
                    {job.partName}
                  </Typography>
                  {job.rush ? <Chip size="small" color="error" label="Rush" /> : null}
                  {job.printsAlone ? (
                    <Chip size="small" variant="outlined" label="Prints alone" title={job.failureReason ?? 'A plate it was on could not be sliced'} data-testid="prints-alone" />
                  ) : null}
                </Stack>
                {job.copy > 1 ? (
                  <Typography variant="caption" color="text.secondary">
                    Copy {job.copy}
                  </Typography>
                ) : null}
                {!job.fileReady ? (
                  <Typography variant="caption" color="warning.main" component="div">
                    Slicing…
                  </Typography>
                ) : null}
                {job.spoolChange ? <SpoolChange job={job} colourOf={colourOf} /> : null}
              </TableCell>
              <TableCell sx={{ maxWidth: 160 }}>
                <Typography variant="body2" noWrap title={job.orderNumber}>
                  {job.orderNumber}
                </Typography>
                <Typography
                  variant="caption"
                  color="text.secondary"
                  noWrap
                  component="div"
                  title={job.sellerName}
                >
                  {job.sellerName}
                </Typography>
              </TableCell>
              <TableCell>
                <MaterialColour material={job.material} colour={colourOf(job.material, job.colour)} />
                <Typography variant="caption" color="text.secondary">
                  {job.nozzleMm} mm nozzle · {Math.round(job.grams)} g
                </Typography>
              </TableCell>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>
                <Typography variant="body2">{formatDuration(job.printSeconds)}</Typography>
                <Typography variant="caption" color="text.secondary">
                  {formatSize(job.sizeMm)}
                </Typography>
              </TableCell>
              <TableCell>
                {job.attempt > 1 ? (
                  <Chip
                    size="small"
                    color="warning"
                    label={attemptLabel(job.attempt)}
                    title={job.failureReason ?? undefined}
                  />
                ) : (
                  <Typography variant="body2" color="text.secondary">
                    {attemptLabel(job.attempt)}
                  </Typography>
                )}
              </TableCell>
              <TableCell>
                <TextField
                  select
                  size="small"
                  fullWidth
                  label="Printer"
                  value={job.pinnedPrinterId ?? ''}
                  disabled={pin.isPending}
                  onChange={(event) => setPin(job, event.target.value)}
                  slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
                >
                  <MenuItem value="">Any printer</MenuItem>
                  {pinnable.map((printer) => (
                    <MenuItem key={printer.id} value={printer.id}>
                      {printer.name}
                    </MenuItem>
                  ))}
                </TextField>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {more ? (
        <Typography variant="caption" color="text.secondary" sx={{ display: 'block', p: 1 }}>
          Showing the first {queued.length} of {total} queued jobs.
        </Typography>
      ) : null}
    </TableContainer>
  );
}
