import { Fragment, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { PRINTER_KIND_LABELS, type Printer, type PrinterTestResult } from '@layerline/contracts';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { usePrinterGroups, usePrinters, useSetPrinterStatus, useTestPrinter, useTrustPrinterCertificate } from '../../../api/printers.ts';
import { AttentionBanner } from './AttentionBanner.tsx';
import { PowerGroups } from './PowerGroups.tsx';
import { clearingSummary } from './printer-form.ts';
import { PRINTER_STATE_LABEL } from './printer-state-labels.ts';
import { PrinterDialog } from './PrinterDialog.tsx';
import { SpoolsDialog } from './SpoolsDialog.tsx';

type StatusAction = 'pause' | 'resume' | 'retire';

const STATUS_COLOUR = { active: 'success', paused: 'warning', retired: 'default' } as const;

const CONFIRM: Record<StatusAction, { title: string; label: string; text: (name: string) => string }> = {
  pause: {
    title: 'Pause this printer?',
    label: 'Pause',
    text: (name) =>
      `${name} gets no new print jobs until it is resumed. A print running on it now is not stopped.`,
  },
  resume: {
    title: 'Resume this printer?',
    label: 'Resume',
    text: (name) => `${name} may receive print jobs again.`,
  },
  retire: {
    title: 'Retire this printer?',
    label: 'Retire',
    text: (name) =>
      `${name} will never receive print jobs again and can no longer be edited. It stays in the list for the history of the jobs it printed.`,
  },
};

const mm = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));

function StateCell({ printer }: { printer: Printer }) {
  if (printer.lastError) {
    return (
      <Typography variant="body2" color="error" title={printer.lastError}>
        Not reachable
      </Typography>
    );
  }
  if (!printer.lastState) {
    return (
      <Typography variant="body2" color="text.secondary">
        Not checked yet
      </Typography>
    );
  }
  return (
    <Typography variant="body2" title={printer.lastState.vendorState ?? undefined}>
      {PRINTER_STATE_LABEL[printer.lastState.state]}
    </Typography>
  );
}

function LoadedSpool({ printer }: { printer: Printer }) {
  const loaded = printer.spools.find((s) => s.loaded);
  if (!loaded) {
    return (
      <Typography variant="body2" color="text.secondary">
        None loaded{printer.spools.length ? ` (${printer.spools.length} waiting)` : ''}
      </Typography>
    );
  }
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
      <Box
        sx={{
          width: 14,
          height: 14,
          borderRadius: '50%',
          bgcolor: loaded.colourHex,
          border: 1,
          borderColor: 'divider',
        }}
      />
      <Typography variant="body2">
        {loaded.material} {loaded.colourName} · {loaded.gramsLeft.toLocaleString('en-US')} g
      </Typography>
    </Stack>
  );
}

function TestResultDialog({
  printer,
  result,
  pending,
  onClose,
}: {
  printer: Printer | null;
  result: PrinterTestResult | null;
  pending: boolean;
  onClose(): void;
}) {
  return (
    <Dialog
      open={printer !== null}
      onClose={onClose}
      maxWidth="xs"
      fullWidth
      aria-labelledby="test-dialog-title"
    >
      <DialogTitle id="test-dialog-title">Test connection: {printer?.name}</DialogTitle>
      <DialogContent>
        {pending || !result ? (
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <CircularProgress size={18} />
            <Typography>Asking the printer…</Typography>
          </Stack>
        ) : result.ok ? (
          <Alert severity="success">
            Connected: {result.identity.software}
            {result.identity.firmware ? `, ${result.identity.firmware}` : ''} in{' '}
            {Math.round(result.identity.latencyMs)} ms.
            {result.status ? ` It is ${PRINTER_STATE_LABEL[result.status.state].toLowerCase()}.` : ''}
          </Alert>
        ) : (
          <Alert severity="error">{result.failure.message}</Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}

/** /admin-printers: the farm's printers (docs/printers.md). */
export default function PrintersPage() {
  const printers = usePrinters();
  const setStatus = useSetPrinterStatus();
  const test = useTestPrinter();
  const trust = useTrustPrinterCertificate();
  const { showToast } = useToast();
  const [editing, setEditing] = useState<Printer | null | 'new'>(null);
  const [spoolsOf, setSpoolsOf] = useState<Printer | null>(null);
  const [confirm, setConfirm] = useState<{ printer: Printer; action: StatusAction } | null>(null);
  const [testing, setTesting] = useState<Printer | null>(null);
  const groups = usePrinterGroups();
  const groupName = (id: string) => groups.data?.find((g) => g.id === id)?.name ?? 'a power group';

  const runTest = (printer: Printer) => {
    setTesting(printer);
    test.reset();
    test.mutate(printer.id, { onError: (error) => showToast(error.message, 'error') });
  };

  const applyStatus = () => {
    if (!confirm) return;
    setStatus.mutate(
      { id: confirm.printer.id, action: confirm.action },
      {
        onSuccess: (saved) => showToast(`${saved.name} is ${saved.status}`),
        onError: (error) => showToast(error.message, 'error'),
        onSettled: () => setConfirm(null),
      },
    );
  };

  return (
    <Box>
      <PageHeading
        title="Printers"
        subtitle="The print farm: add printers, load spools, test their connection, pause or retire them."
        actions={
          <Button variant="contained" onClick={() => setEditing('new')}>
            Add printer
          </Button>
        }
      />
      {printers.error ? <Alert severity="error">{printers.error.message}</Alert> : null}
      {printers.isPending ? <CircularProgress /> : null}
      {printers.data && printers.data.length === 0 ? (
        <Alert severity="info">No printers yet. Add one: a simulated printer needs no hardware.</Alert>
      ) : null}
      {printers.data && printers.data.length > 0 ? (
        <TableContainer component={Paper} variant="outlined">
          <Table size="small" aria-label="Printers">
            <TableHead>
              <TableRow>
                <TableCell>Printer</TableCell>
                <TableCell>Status</TableCell>
                <TableCell>State</TableCell>
                <TableCell>Build volume</TableCell>
                <TableCell>Nozzle</TableCell>
                <TableCell>Loaded spool</TableCell>
                <TableCell>Connection</TableCell>
                <TableCell align="right">Actions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {printers.data.map((printer) => {
                const retired = printer.status === 'retired';
                return (
                  <Fragment key={printer.id}>
                    {printer.attention && !retired ? (
                      <TableRow>
                        <TableCell colSpan={8} sx={{ borderBottom: 0, pb: 0 }}>
                          <AttentionBanner
                            printerId={printer.id}
                            printerName={printer.name}
                            attention={{ reason: printer.attention, since: printer.attentionAt }}
                          />
                        </TableCell>
                      </TableRow>
                    ) : null}
                    <TableRow
                      data-testid={`printer-${printer.name}`}
                      sx={retired ? { opacity: 0.6 } : undefined}
                    >
                      <TableCell>
                        <Typography variant="body2" sx={{ fontWeight: 600 }}>
                          {printer.name}
                        </Typography>
                        <Typography variant="caption" color="text.secondary" component="div">
                          {[
                            printer.model,
                            printer.enclosed ? 'enclosed' : '',
                            printer.groupId ? groupName(printer.groupId) : '',
                          ]
                            .filter(Boolean)
                            .join(' · ')}
                        </Typography>
                        {printer.clearing.kind !== 'person' ? (
                          <Typography variant="caption" color="info.main" component="div">
                            {clearingSummary(printer.clearing, printer.unattendedPlates)}
                          </Typography>
                        ) : null}
                        {printer.tags.length ? (
                          <Stack direction="row" spacing={0.5} sx={{ mt: 0.5 }}>
                            {printer.tags.map((tag) => (
                              <Chip key={tag} label={tag} size="small" variant="outlined" />
                            ))}
                          </Stack>
                        ) : null}
                      </TableCell>
                      <TableCell>
                        <Chip label={printer.status} size="small" color={STATUS_COLOUR[printer.status]} />
                      </TableCell>
                      <TableCell>
                        <StateCell printer={printer} />
                      </TableCell>
                      <TableCell sx={{ whiteSpace: 'nowrap' }}>
                        {mm(printer.buildVolumeMm.x)} × {mm(printer.buildVolumeMm.y)} ×{' '}
                        {mm(printer.buildVolumeMm.z)} mm
                      </TableCell>
                      <TableCell sx={{ whiteSpace: 'nowrap' }}>{printer.nozzleMm} mm</TableCell>
                      <TableCell>
                        <LoadedSpool printer={printer} />
                      </TableCell>
                      <TableCell>
                        <Typography variant="body2">
                          {PRINTER_KIND_LABELS[printer.connection.kind]}
                        </Typography>
                        {printer.connection.kind === 'bambulab' ? (
                          <Typography variant="caption" color="text.secondary">
                            {printer.connection.host} · {printer.connection.serial}
                            {printer.secretSet ? ' · access code stored' : ''}
                            {printer.certificateSha256 ? ' · certificate pinned' : ''}
                          </Typography>
                        ) : printer.connection.kind !== 'simulated' ? (
                          <Typography variant="caption" color="text.secondary">
                            {printer.connection.baseUrl}
                            {printer.secretSet ? ' · key stored' : ''}
                          </Typography>
                        ) : null}
                      </TableCell>
                      <TableCell align="right">
                        <Stack
                          direction="row"
                          spacing={0.5}
                          useFlexGap
                          sx={{ justifyContent: 'flex-end', flexWrap: 'wrap' }}
                        >
                          <Button size="small" onClick={() => runTest(printer)}>
                            Test connection
                          </Button>
                          {!retired ? (
                            <>
                              <Button size="small" onClick={() => setEditing(printer)}>
                                Edit
                              </Button>
                              <Button size="small" onClick={() => setSpoolsOf(printer)}>
                                Spools
                              </Button>
                              {printer.connection.kind === 'bambulab' && printer.certificateSha256 ? (
                                <Button
                                  size="small"
                                  title={`Pinned certificate: ${printer.certificateSha256}`}
                                  disabled={trust.isPending}
                                  onClick={() =>
                                    trust.mutate(printer.id, {
                                      onSuccess: (saved) =>
                                        showToast(`${saved.name}: the certificate it shows next is trusted and pinned`),
                                      onError: (error) => showToast(error.message, 'error'),
                                    })
                                  }
                                >
                                  Trust new certificate
                                </Button>
                              ) : null}
                              <Button
                                size="small"
                                onClick={() =>
                                  setConfirm({
                                    printer,
                                    action: printer.status === 'paused' ? 'resume' : 'pause',
                                  })
                                }
                              >
                                {printer.status === 'paused' ? 'Resume' : 'Pause'}
                              </Button>
                              <Button
                                size="small"
                                color="error"
                                onClick={() => setConfirm({ printer, action: 'retire' })}
                              >
                                Retire
                              </Button>
                            </>
                          ) : null}
                        </Stack>
                      </TableCell>
                    </TableRow>
                  </Fragment>
                );
              })}
            </TableBody>
          </Table>
        </TableContainer>
      ) : null}

      <PowerGroups />

      {editing !== null ? (
        <PrinterDialog
          key={editing === 'new' ? 'new' : editing.id}
          printer={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setEditing(null);
            showToast(`${saved.name} saved`);
          }}
        />
      ) : null}
      {spoolsOf ? (
        <SpoolsDialog key={spoolsOf.id} printer={spoolsOf} onClose={() => setSpoolsOf(null)} />
      ) : null}
      <TestResultDialog
        printer={testing}
        result={test.data ?? null}
        pending={test.isPending}
        onClose={() => setTesting(null)}
      />
      <ConfirmDialog
        open={confirm !== null}
        title={confirm ? CONFIRM[confirm.action].title : ''}
        confirmLabel={confirm ? CONFIRM[confirm.action].label : ''}
        busy={setStatus.isPending}
        onConfirm={applyStatus}
        onCancel={() => setConfirm(null)}
      >
        {confirm ? CONFIRM[confirm.action].text(confirm.printer.name) : null}
      </ConfirmDialog>
    </Box>
  );
}
