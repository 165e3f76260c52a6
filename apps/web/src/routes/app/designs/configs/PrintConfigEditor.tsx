import { useId, useMemo, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Slider from '@mui/material/Slider';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { FILAMENT_TYPES, LAYER_HEIGHTS_MM, type Design, type PrintConfig } from '@layerline/contracts';
import { useDeletePrintConfig, useEstimateQuote, useUpdatePrintConfig } from '../../../../api/designs.ts';
import { useToast } from '../../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../../components/ConfirmDialog.tsx';
import { formatUsd } from '../design-format.ts';
import { useDebouncedValue } from '../use-debounced-value.ts';
import { AddOnFields } from './AddOnFields.tsx';
import { ColourField } from './ColourField.tsx';
import {
  defaultParts,
  draftErrors,
  naturalPartCount,
  draftToInput,
  estimableFieldsChanged,
  estimateInput,
  sameDraft,
  toDraft,
  type ConfigDraft,
} from './config-draft.ts';
import { FILAMENT_HINTS, LAYER_HEIGHT_HINTS } from './filament-hints.ts';
import { PartsEditor } from './PartsEditor.tsx';
import { QuotePanel } from './QuotePanel.tsx';

function partCountText(design: Design): string {
  const { count, unit } = naturalPartCount(design);
  const noun = unit === 'object' ? 'object' : 'separate shell';
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Long enough to skip the values a slider passes through, short enough to feel instant. */
const ESTIMATE_DEBOUNCE_MS = 350;

const INFILL_MARKS = [0, 15, 50, 100].map((value) => ({ value, label: `${value}%` }));

export interface PrintConfigEditorProps {
  design: Design;
  config: PrintConfig;
  canDelete: boolean;
  /** The model in the viewer takes the colour being edited. */
  onColourChange(colour: string): void;
  onDeleted(): void;
}

/**
 * One print configuration: the settings on the left, the quote on the right. Changes show a
 * what-if quote straight away; Save makes them the configuration's own.
 */
export function PrintConfigEditor({
  design,
  config,
  canDelete,
  onColourChange,
  onDeleted,
}: PrintConfigEditorProps) {
  const { showToast } = useToast();
  const saved = useMemo(() => toDraft(config), [config]);
  const [draft, setDraft] = useState<ConfigDraft>(saved);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const update = useUpdatePrintConfig();
  const remove = useDeletePrintConfig();
  const ids = { infill: useId(), layer: useId(), form: useId() };

  const debouncedDraft = useDebouncedValue(draft, ESTIMATE_DEBOUNCE_MS);
  const wantsEstimate = estimableFieldsChanged(debouncedDraft, saved);
  const estimate = useEstimateQuote(
    wantsEstimate ? estimateInput(design.id, config.id, debouncedDraft) : null,
  );

  const dirty = !sameDraft(draft, saved);
  const settling =
    estimableFieldsChanged(draft, saved) !== wantsEstimate ||
    (wantsEstimate && !sameDraft(draft, debouncedDraft));
  const preview = wantsEstimate && estimate.data !== undefined;
  const quote = preview ? (estimate.data ?? null) : config.quote;
  const errors = draftErrors(draft);
  const pricedOnSave =
    dirty &&
    (JSON.stringify(draft.addOns) !== JSON.stringify(saved.addOns) ||
      JSON.stringify(draft.parts) !== JSON.stringify(saved.parts) ||
      draft.multicolour !== saved.multicolour);

  function change(patch: Partial<ConfigDraft>) {
    setDraft((current) => ({ ...current, ...patch }));
    if (patch.colour) onColourChange(patch.colour);
  }

  function save() {
    update.mutate(
      { configId: config.id, input: draftToInput(draft) },
      {
        onSuccess: (next) => {
          setDraft(toDraft(next));
          showToast(
            `Saved “${next.name}”${next.quote ? ` · ${next.quote.costUsd.toLocaleString('en-US', { style: 'currency', currency: 'USD' })} per unit` : ''}`,
          );
        },
        onError: (error) => showToast(error.message, 'error'),
      },
    );
  }

  function discard() {
    setDraft(saved);
    onColourChange(saved.colour);
  }

  return (
    <Box
      data-testid="print-config-editor"
      data-config-id={config.id}
      sx={{
        display: 'grid',
        gridTemplateColumns: { xs: '1fr', md: 'minmax(0, 1fr) 320px' },
        gap: 3,
        alignItems: 'start',
      }}
    >
      <Stack
        spacing={2.5}
        component="form"
        id={ids.form}
        onSubmit={(event) => {
          event.preventDefault();
          if (dirty && errors.length === 0) save();
        }}
        aria-label={`Print configuration ${config.name}`}
      >
        <TextField
          label="Configuration name"
          value={draft.name}
          onChange={(event) => change({ name: event.target.value })}
          slotProps={{ htmlInput: { maxLength: 120 } }}
          error={!draft.name.trim()}
          helperText={
            !draft.name.trim() ? 'Give the configuration a name' : 'For example “Red PETG, 20% infill”'
          }
        />
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
          <TextField
            select
            label="Filament"
            value={draft.filament}
            onChange={(event) => change({ filament: event.target.value as ConfigDraft['filament'] })}
            helperText={FILAMENT_HINTS[draft.filament]}
            slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'filament-select' } as object } }}
          >
            {FILAMENT_TYPES.map((filament) => (
              <MenuItem key={filament} value={filament}>
                {filament}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            select
            id={ids.layer}
            label="Layer height"
            value={draft.layerHeightMm}
            onChange={(event) => change({ layerHeightMm: Number(event.target.value) })}
            helperText={
              LAYER_HEIGHT_HINTS[draft.layerHeightMm] ?? 'Thinner layers: finer surface, longer print'
            }
          >
            {LAYER_HEIGHTS_MM.map((height) => (
              <MenuItem key={height} value={height}>
                {height.toFixed(2)} mm
              </MenuItem>
            ))}
            {(LAYER_HEIGHTS_MM as readonly number[]).includes(draft.layerHeightMm) ? null : (
              <MenuItem value={draft.layerHeightMm}>{draft.layerHeightMm.toFixed(2)} mm</MenuItem>
            )}
          </TextField>
        </Box>
        <ColourField label="Colour" value={draft.colour} onChange={(colour) => change({ colour })} />
        <Box>
          <Typography id={ids.infill} gutterBottom>
            Infill: <strong>{draft.infillPercent}%</strong>
          </Typography>
          <Box sx={{ px: 1 }}>
            <Slider
              value={draft.infillPercent}
              min={0}
              max={100}
              step={1}
              marks={INFILL_MARKS}
              valueLabelDisplay="auto"
              valueLabelFormat={(value) => `${value}%`}
              onChange={(_event, value) => change({ infillPercent: value })}
              slotProps={{
                input: { 'aria-labelledby': ids.infill, 'data-testid': 'infill-slider' } as object,
              }}
            />
          </Box>
          <Typography variant="body2" color="text.secondary">
            More infill makes a stronger, heavier part; 15% suits most decorative prints.
          </Typography>
        </Box>
        <Box>
          <FormControlLabel
            control={
              <Switch
                checked={draft.isMultipart}
                onChange={(event) =>
                  change({
                    isMultipart: event.target.checked,
                    parts:
                      event.target.checked && draft.parts.length === 0
                        ? defaultParts(design, draft.filament, draft.colour)
                        : draft.parts,
                  })
                }
              />
            }
            label="Multi-part print"
          />
          <Typography variant="body2" color="text.secondary">
            Print each part on its own, with its own filament and colour (this file has{' '}
            {partCountText(design)}).
          </Typography>
          {draft.isMultipart ? (
            <PartsEditor parts={draft.parts} onChange={(parts) => change({ parts })} />
          ) : null}
        </Box>
        <Box>
          <FormControlLabel
            control={
              <Switch
                checked={draft.multicolour}
                onChange={(event) => change({ multicolour: event.target.checked })}
              />
            }
            label="Multicolour"
          />
          <Typography variant="body2" color="text.secondary">
            Several colours in one print, changed during printing.
          </Typography>
        </Box>
        <AddOnFields addOns={draft.addOns} onChange={(addOns) => change({ addOns })} />
        {errors.length > 0 && dirty ? <Alert severity="warning">{errors.join(' ')}</Alert> : null}
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
          <Button
            type="submit"
            variant="contained"
            disabled={!dirty || errors.length > 0 || update.isPending}
            data-testid="save-config"
          >
            {update.isPending ? 'Saving…' : 'Save configuration'}
          </Button>
          <Button onClick={discard} disabled={!dirty || update.isPending}>
            Discard changes
          </Button>
          <Box sx={{ flex: 1 }} />
          {canDelete ? (
            <Button color="error" startIcon={<DeleteOutlineIcon />} onClick={() => setConfirmDelete(true)}>
              Delete configuration
            </Button>
          ) : null}
        </Box>
      </Stack>
      {/* On a phone the full quote sits below the form; this bar keeps the price in sight while editing. */}
      <Paper
        elevation={6}
        sx={{
          display: { xs: dirty ? 'flex' : 'none', md: 'none' },
          position: 'sticky',
          bottom: 8,
          zIndex: 2,
          alignItems: 'center',
          gap: 1.5,
          px: 2,
          py: 1,
          borderRadius: 2,
        }}
      >
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Typography
            variant="h6"
            component="p"
            sx={{ fontWeight: 700, lineHeight: 1.2, opacity: settling ? 0.6 : 1 }}
            data-testid="quote-cost-compact"
          >
            {quote ? formatUsd(quote.costUsd) : '—'}
          </Typography>
          <Typography variant="caption" color="text.secondary">
            {preview ? 'Preview per unit · not saved' : 'Per unit'}
          </Typography>
        </Box>
        <Button
          type="submit"
          form={ids.form}
          variant="contained"
          disabled={!dirty || errors.length > 0 || update.isPending}
        >
          Save
        </Button>
      </Paper>
      <QuotePanel
        quote={quote}
        preview={preview}
        updating={settling || (wantsEstimate && estimate.isFetching)}
        pricedOnSave={pricedOnSave}
        slicing={config.slicing}
        error={
          wantsEstimate && estimate.isError ? `Could not update the quote: ${estimate.error.message}` : null
        }
      />
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete “${config.name}”?`}
        confirmLabel="Delete"
        busy={remove.isPending}
        onCancel={() => setConfirmDelete(false)}
        onConfirm={() =>
          remove.mutate(
            { configId: config.id, designId: design.id },
            {
              onSuccess: () => {
                setConfirmDelete(false);
                showToast(`Deleted “${config.name}”`);
                onDeleted();
              },
              onError: (error) => {
                setConfirmDelete(false);
                showToast(error.message, 'error');
              },
            },
          )
        }
      >
        Its settings and quote are removed. The design and its other configurations stay.
      </ConfirmDialog>
    </Box>
  );
}
