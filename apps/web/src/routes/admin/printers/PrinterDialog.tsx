import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Checkbox from '@mui/material/Checkbox';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import {
  BAMBULAB_MODELS,
  CLEARING_KINDS,
  type ClearingKind,
  MATERIALS_NEEDING_ENCLOSURE,
  PRINTER_KIND_LABELS,
  PRINTER_KINDS,
  SPOOL_MATERIALS,
  type BambulabModel,
  type Printer,
  type PrinterKind,
} from '@layerline/contracts';
import {
  useCreatePrinter,
  usePrinterGroups,
  useSlicerPrinterPresets,
  useUpdatePrinter,
} from '../../../api/printers.ts';
import {
  emptyPrinterForm,
  presetKey,
  printerBody,
  printerFormFrom,
  type PrinterFormState,
  type SlicerProfileChoice,
} from './printer-form.ts';

/** Bed and height of each Bambu Lab model (shared/contracts/printers/bambulab-machine-profiles.json). */
const BAMBU_BEDS: Readonly<Record<BambulabModel, { x: string; y: string; z: string }>> = {
  'X1 Carbon': { x: '256', y: '256', z: '250' },
  P1S: { x: '256', y: '256', z: '250' },
  P1P: { x: '256', y: '256', z: '250' },
  A1: { x: '256', y: '256', z: '256' },
  'A1 mini': { x: '180', y: '180', z: '180' },
};
const CLEARING_LABELS: Record<ClearingKind, string> = {
  person: 'A person clears the bed',
  eject_gcode: 'Eject G-code (clears itself)',
  plate_changer: 'Plate changer (clears itself)',
};
const CLEARING_HELP: Record<ClearingKind, string> = {
  person: 'Each print waits for someone to confirm the bed clear',
  eject_gcode: 'After each print the bed cools, then your G-code sweeps the part off and the next plate starts',
  plate_changer: 'The changer swaps the plate after each print and the next plate starts',
};

const MONOSPACE = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 13 };

/**
 * Add or edit a printer: common fields, then the fields of the chosen connection kind. Mounted per
 * printer (the page renders it with `key`), so the form starts from that printer.
 */
export function PrinterDialog({
  printer,
  onClose,
  onSaved,
}: {
  /** The printer to edit, or null to add one. */
  printer: Printer | null;
  onClose(): void;
  onSaved(saved: Printer): void;
}) {
  const [form, setForm] = useState<PrinterFormState>(() =>
    printer ? printerFormFrom(printer) : emptyPrinterForm(),
  );
  const create = useCreatePrinter();
  const update = useUpdatePrinter();
  const mutation = printer ? update : create;
  const groups = usePrinterGroups();
  const presets = useSlicerPrinterPresets();
  const presetList = presets.data?.presets ?? [];

  const set =
    <K extends keyof PrinterFormState>(key: K) =>
    (value: PrinterFormState[K]) =>
      setForm((current) => ({ ...current, [key]: value }));
  const text = (key: keyof PrinterFormState, label: string, extra: Record<string, unknown> = {}) => (
    <TextField
      label={label}
      value={form[key] as string}
      onChange={(event) => set(key)(event.target.value as never)}
      size="small"
      fullWidth
      {...extra}
    />
  );
  const editingSameKind = printer !== null && printer.connection.kind === form.kind;
  const keepHint = editingSameKind && printer.secretSet ? 'Leave empty to keep the stored one' : undefined;

  const toggleMaterial = (material: PrinterFormState['materials'][number], on: boolean) =>
    set('materials')(SPOOL_MATERIALS.filter((m) => (m === material ? on : form.materials.includes(m))));

  /** A bundled preset brings its bed and nozzle with it. */
  const choosePreset = (key: string) => {
    const chosen = presetList.find((p) => presetKey(p.vendor, p.preset) === key);
    setForm((current) => ({
      ...current,
      preset: key,
      ...(chosen
        ? {
            x: String(chosen.bedMm.x),
            y: String(chosen.bedMm.y),
            z: String(chosen.maxHeightMm),
            nozzleMm: String(chosen.nozzleMm),
          }
        : {}),
    }));
  };

  /** A Bambu Lab model brings its bed (A1 mini 180 mm, the others 256 mm) and its slicing profile. */
  const chooseBambuModel = (model: BambulabModel) =>
    setForm((current) => ({
      ...current,
      bambuModel: model,
      ...BAMBU_BEDS[model],
      nozzleMm: '0.4',
    }));

  /** A Bambu Lab printer is sliced with its machine profile unless the admin chose otherwise. */
  const chooseKind = (kind: PrinterKind) =>
    setForm((current) => ({
      ...current,
      kind,
      ...(kind === 'bambulab' && current.profile === 'generic'
        ? { profile: 'bambulab' as const, ...BAMBU_BEDS[current.bambuModel], nozzleMm: '0.4' }
        : {}),
    }));

  const submit = () => {
    const body = printerBody(form, printer !== null);
    const done = { onSuccess: (saved: Printer) => onSaved(saved) };
    if (printer) update.mutate({ id: printer.id, input: body }, done);
    else create.mutate(body, done);
  };

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="printer-dialog-title">
      <DialogTitle id="printer-dialog-title">
        {printer ? `Edit ${printer.name}` : 'Add a printer'}
      </DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {mutation.error ? <Alert severity="error">{mutation.error.message}</Alert> : null}
          {text('name', 'Name', { required: true, autoFocus: true })}
          {text('model', 'Model')}
          <Stack direction="row" spacing={1}>
            {text('x', 'Build X (mm)', { type: 'number' })}
            {text('y', 'Build Y (mm)', { type: 'number' })}
            {text('z', 'Build Z (mm)', { type: 'number' })}
          </Stack>
          <Stack direction="row" spacing={1}>
            {text('nozzleMm', 'Nozzle (mm)', { type: 'number', slotProps: { htmlInput: { step: 0.1 } } })}
            {text('tags', 'Tags', { helperText: 'Separated by commas' })}
          </Stack>
          <FormControl component="fieldset" size="small">
            <FormLabel component="legend">Materials it may print</FormLabel>
            <FormGroup row>
              {SPOOL_MATERIALS.map((material) => (
                <FormControlLabel
                  key={material}
                  label={material}
                  control={
                    <Checkbox
                      size="small"
                      checked={form.materials.includes(material)}
                      onChange={(event) => toggleMaterial(material, event.target.checked)}
                    />
                  }
                />
              ))}
            </FormGroup>
          </FormControl>
          <FormControl>
            <FormControlLabel
              control={
                <Switch checked={form.enclosed} onChange={(event) => set('enclosed')(event.target.checked)} />
              }
              label="Enclosed"
            />
            <FormHelperText>
              {MATERIALS_NEEDING_ENCLOSURE.join(', ')} only go to enclosed printers.
            </FormHelperText>
          </FormControl>
          <TextField
            select
            label="Power group"
            value={form.groupId}
            onChange={(event) => set('groupId')(event.target.value)}
            size="small"
            fullWidth
            helperText="Printers on one circuit start their prints staggered, as the group allows"
          >
            <MenuItem value="">No group (not staggered)</MenuItem>
            {(groups.data ?? []).map((group) => (
              <MenuItem key={group.id} value={group.id}>
                {group.name} · {group.maxStarts} per {group.perSeconds} s
              </MenuItem>
            ))}
          </TextField>
          <TextField
            select
            label="Slicer profile"
            value={form.profile}
            onChange={(event) => set('profile')(event.target.value as SlicerProfileChoice)}
            size="small"
            fullWidth
          >
            <MenuItem value="generic">Layerline generic (no printer preset)</MenuItem>
            <MenuItem value="bundled">A PrusaSlicer printer preset</MenuItem>
            <MenuItem value="custom">My own start and end G-code</MenuItem>
            <MenuItem value="bambulab">A Bambu Lab machine profile</MenuItem>
          </TextField>
          {form.profile === 'bambulab' ? (
            <TextField
              select
              label="Bambu Lab model"
              value={form.bambuModel}
              onChange={(event) => chooseBambuModel(event.target.value as BambulabModel)}
              size="small"
              fullWidth
              helperText="Its bed and Bambu’s own start and end G-code (levelling, purge)"
            >
              {BAMBULAB_MODELS.map((model) => (
                <MenuItem key={model} value={model}>
                  {model}
                </MenuItem>
              ))}
            </TextField>
          ) : null}
          {form.profile === 'bundled' ? (
            presetList.length > 0 ? (
              <TextField
                select
                label="Printer preset"
                value={form.preset}
                onChange={(event) => choosePreset(event.target.value)}
                size="small"
                fullWidth
                helperText="Fills the build volume and nozzle from the preset"
              >
                {presetList.map((p) => (
                  <MenuItem key={presetKey(p.vendor, p.preset)} value={presetKey(p.vendor, p.preset)}>
                    {p.preset} ({p.vendor})
                  </MenuItem>
                ))}
              </TextField>
            ) : (
              <Alert severity="info">
                No PrusaSlicer printer presets are available on this server. Choose the generic profile or
                enter your own start and end G-code.
              </Alert>
            )
          ) : null}
          {form.profile === 'custom' ? (
            <>
              {text('startGcode', 'Start G-code', {
                multiline: true,
                minRows: 4,
                slotProps: { htmlInput: { style: MONOSPACE } },
                helperText: 'PrusaSlicer placeholders such as [first_layer_temperature] are filled in',
              })}
              {text('endGcode', 'End G-code', {
                multiline: true,
                minRows: 3,
                slotProps: { htmlInput: { style: MONOSPACE } },
              })}
            </>
          ) : null}
          <TextField
            select
            label="Bed clearing"
            value={form.clearing}
            onChange={(event) => set('clearing')(event.target.value as ClearingKind)}
            size="small"
            fullWidth
            helperText={CLEARING_HELP[form.clearing]}
          >
            {CLEARING_KINDS.map((kind) => (
              <MenuItem key={kind} value={kind}>
                {CLEARING_LABELS[kind]}
              </MenuItem>
            ))}
          </TextField>
          {form.clearing === 'eject_gcode'
            ? text('ejectGcode', 'Eject G-code', {
                multiline: true,
                minRows: 3,
                slotProps: { htmlInput: { style: MONOSPACE } },
                helperText: 'The moves that sweep the part off, run once the bed has cooled',
              })
            : null}
          {form.clearing !== 'person' ? (
            <Stack direction="row" spacing={1}>
              {form.clearing === 'eject_gcode'
                ? text('releaseTempC', 'Release temperature (°C)', {
                    type: 'number',
                    helperText: 'The bed cools to this before the sweep',
                  })
                : null}
              {text('maxUnattendedPlates', 'Plates without a person', {
                type: 'number',
                helperText: 'Then it waits for a person to look',
              })}
            </Stack>
          ) : null}
          <TextField
            select
            label="Connection"
            value={form.kind}
            onChange={(event) => chooseKind(event.target.value as PrinterKind)}
            size="small"
            fullWidth
          >
            {PRINTER_KINDS.map((kind) => (
              <MenuItem key={kind} value={kind}>
                {PRINTER_KIND_LABELS[kind]}
              </MenuItem>
            ))}
          </TextField>
          {form.kind === 'bambulab' ? (
            <>
              <Alert severity="info" data-testid="bambu-requirements">
                Layerline can start prints only on a printer in <strong>LAN-only mode</strong> with{' '}
                <strong>Developer Mode</strong> on (on its screen: Settings › Network; firmware since 2025). The
                screen shows its IP address and 8-character <strong>access code</strong>; the{' '}
                <strong>serial number</strong> is under Settings › Device. Its certificate is trusted the first
                time Layerline connects, and a different one is refused until you trust it again.
              </Alert>
              <Stack direction="row" spacing={1}>
                {text('bambuHost', 'IP address', { placeholder: '192.168.1.60', required: true })}
                {text('bambuSerial', 'Serial number', { required: true })}
              </Stack>
              <Stack direction="row" spacing={1}>
                {text('accessCode', 'LAN access code', {
                  type: 'password',
                  autoComplete: 'new-password',
                  helperText: keepHint ?? 'Sealed at rest, never shown again',
                })}
                <TextField
                  select
                  label="Model"
                  value={form.bambuModel}
                  onChange={(event) => chooseBambuModel(event.target.value as BambulabModel)}
                  size="small"
                  fullWidth
                >
                  {BAMBULAB_MODELS.map((model) => (
                    <MenuItem key={model} value={model}>
                      {model}
                    </MenuItem>
                  ))}
                </TextField>
              </Stack>
              <Stack direction="row" spacing={1}>
                {text('mqttPort', 'MQTT port', { type: 'number', helperText: '8883 on the printer' })}
                {text('ftpsPort', 'FTPS port', { type: 'number', helperText: '990 on the printer' })}
              </Stack>
            </>
          ) : form.kind === 'simulated' ? (
            <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
              {text('speedFactor', 'Speed factor', {
                type: 'number',
                helperText: '60: an hour’s print takes a minute',
              })}
              <FormControlLabel
                control={
                  <Switch checked={form.offline} onChange={(event) => set('offline')(event.target.checked)} />
                }
                label="Offline"
              />
            </Stack>
          ) : (
            <>
              {text('baseUrl', 'Address', { placeholder: 'http://192.168.1.50', required: true })}
              {form.kind === 'prusalink' ? (
                <Stack direction="row" spacing={1}>
                  <TextField
                    select
                    label="Sign-in"
                    value={form.prusaAuth}
                    onChange={(event) => set('prusaAuth')(event.target.value as 'api-key' | 'digest')}
                    size="small"
                    fullWidth
                  >
                    <MenuItem value="api-key">API key</MenuItem>
                    <MenuItem value="digest">User name and password</MenuItem>
                  </TextField>
                  {text('storage', 'Storage', { helperText: 'usb (MK4, XL, MINI) or local' })}
                </Stack>
              ) : null}
              {form.kind === 'prusalink' && form.prusaAuth === 'digest' ? (
                <Stack direction="row" spacing={1}>
                  {text('username', 'User name')}
                  {text('password', 'Password', {
                    type: 'password',
                    autoComplete: 'new-password',
                    helperText: keepHint,
                  })}
                </Stack>
              ) : (
                text('apiKey', form.kind === 'moonraker' ? 'API key (optional)' : 'API key', {
                  type: 'password',
                  autoComplete: 'new-password',
                  helperText: keepHint,
                })
              )}
            </>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={mutation.isPending}>
          Cancel
        </Button>
        <Button variant="contained" onClick={submit} disabled={mutation.isPending}>
          {printer ? 'Save' : 'Add printer'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
