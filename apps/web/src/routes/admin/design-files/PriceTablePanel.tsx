import type { ReactNode } from 'react';
import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import InputAdornment from '@mui/material/InputAdornment';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { ADD_ON_LABELS, ADD_ON_SERVICES, FILAMENT_TYPES, type PriceTable } from '@layerline/contracts';
import { usePriceTable, useSavePriceTable } from '../../../api/designs.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { priceTableFromForm, priceTableToForm, type PriceTableForm } from './price-table-form.ts';

/** The rates every quote is computed from; saving re-prices estimates from then on. */
export function PriceTablePanel() {
  const table = usePriceTable();
  if (table.isPending) {
    return (
      <Box
        sx={{ display: 'grid', placeItems: 'center', py: 6 }}
        role="status"
        aria-label="Loading the price table"
      >
        <CircularProgress />
      </Box>
    );
  }
  if (table.isError) return <Alert severity="error">{table.error.message}</Alert>;
  // Keyed on the loaded table, so the form starts again from what the server saved.
  return <PriceTableEditor key={JSON.stringify(table.data)} saved={table.data} />;
}

function PriceTableEditor({ saved }: { saved: PriceTable }) {
  const { showToast } = useToast();
  const save = useSavePriceTable();
  const [form, setForm] = useState<PriceTableForm>(() => priceTableToForm(saved));
  const parsed = priceTableFromForm(form);
  const dirty = JSON.stringify(form) !== JSON.stringify(priceTableToForm(saved));

  function input(key: string, label: string, unit: string, testId?: string) {
    const error = parsed.ok ? undefined : parsed.errors[key];
    return (
      <TextField
        key={key}
        size="small"
        label={label}
        value={form[key] ?? ''}
        onChange={(event) => setForm((current) => ({ ...current, [key]: event.target.value }))}
        error={Boolean(error)}
        helperText={error}
        slotProps={{
          input: { endAdornment: <InputAdornment position="end">{unit}</InputAdornment> },
          htmlInput: { inputMode: 'decimal', 'data-testid': testId ?? `price-${key}` },
        }}
      />
    );
  }

  return (
    <Box
      component="form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        if (!parsed.ok) return;
        save.mutate(parsed.table, {
          onSuccess: () => showToast('Price table saved. New quotes use these rates.'),
          onError: (error) => showToast(error.message, 'error'),
        });
      }}
      sx={{ display: 'flex', flexDirection: 'column', gap: 3, maxWidth: 880 }}
      aria-label="Price table"
      data-testid="price-table"
    >
      <Section title="Filament" subtitle="Material cost per gram for each filament.">
        {FILAMENT_TYPES.map((filament) => input(`filament.${filament}`, filament, '$/g'))}
      </Section>
      <Section title="Production" subtitle="Charged on every print, whatever the filament.">
        {input('fulfilmentUsdPerGram', 'Fulfilment', '$/g')}
        {input('machineRateUsdPerHour', 'Machine time', '$/h')}
        {input('minimumUsdPerPart', 'Minimum per part', '$')}
      </Section>
      <Section title="Add-on services" subtitle="Price of each add-on, per unit of quantity.">
        {ADD_ON_SERVICES.map((service) => input(`addOn.${service}`, ADD_ON_LABELS[service], '$'))}
      </Section>
      {!parsed.ok ? <Alert severity="warning">Fix the highlighted fields to save.</Alert> : null}
      <Box sx={{ display: 'flex', gap: 1 }}>
        <Button
          type="submit"
          variant="contained"
          disabled={!dirty || !parsed.ok || save.isPending}
          data-testid="save-price-table"
        >
          {save.isPending ? 'Saving…' : 'Save price table'}
        </Button>
        <Button onClick={() => setForm(priceTableToForm(saved))} disabled={!dirty || save.isPending}>
          Discard changes
        </Button>
      </Box>
    </Box>
  );
}

function Section({ title, subtitle, children }: { title: string; subtitle: string; children: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 2, borderRadius: 2 }} component="fieldset">
      <Typography component="legend" variant="subtitle1" sx={{ fontWeight: 600, px: 0.5 }}>
        {title}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {subtitle}
      </Typography>
      <Box
        sx={{
          display: 'grid',
          gap: 2,
          gridTemplateColumns: 'repeat(auto-fill, minmax(min(100%, 200px), 1fr))',
        }}
      >
        {children}
      </Box>
    </Paper>
  );
}
