import { useId, useState } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { Design, PrintConfig } from '@layerline/contracts';
import { usePlaceholderCost3mf, useSetCostData } from '../../../api/designs.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { BASIS_LABELS, formatPrintTime, formatQuoteLine } from '../../app/designs/design-format.ts';
import { costDataFromForm, type CostDataForm } from './cost-data-form.ts';

/** One configuration: its settings and quote, and the form that replaces the quote with exact cost data. */
export function AdminConfigCard({ design, config }: { design: Design; config: PrintConfig }) {
  const { showToast } = useToast();
  const setCostData = useSetCostData();
  const placeholder = usePlaceholderCost3mf();
  const formId = useId();
  const [form, setForm] = useState<CostDataForm>(() => ({
    grams: config.quote ? config.quote.grams.toFixed(1) : '',
    printTime: config.quote ? formatPrintTime(config.quote.printSeconds) : '',
    costUsd: '',
    note: '',
  }));
  const [submitted, setSubmitted] = useState(false);
  const parsed = costDataFromForm(form);
  const showErrors = submitted && !parsed.ok;

  function submit() {
    setSubmitted(true);
    if (!parsed.ok) return;
    setCostData.mutate(
      { configId: config.id, costData: parsed.costData },
      {
        onSuccess: (next) => {
          setSubmitted(false);
          showToast(
            `Cost data saved for “${next.name}”${next.quote ? `: ${formatQuoteLine(next.quote)}` : ''}`,
          );
        },
        onError: (error) => showToast(error.message, 'error'),
      },
    );
  }

  const field = (key: keyof CostDataForm) => ({
    value: form[key],
    onChange: (event: { target: { value: string } }) =>
      setForm((current) => ({ ...current, [key]: event.target.value })),
    error: showErrors && !parsed.ok && key in parsed.errors,
    helperText: showErrors && !parsed.ok ? parsed.errors[key] : undefined,
  });

  return (
    <Paper
      variant="outlined"
      sx={{ p: 2, borderRadius: 2 }}
      data-testid="admin-config"
      data-config-id={config.id}
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <Box
          sx={{
            width: 12,
            height: 12,
            borderRadius: '50%',
            bgcolor: config.colour,
            border: 1,
            borderColor: 'divider',
          }}
        />
        <Typography sx={{ fontWeight: 600 }}>{config.name}</Typography>
        {config.quote ? (
          <Chip
            size="small"
            label={BASIS_LABELS[config.quote.basis]}
            data-testid="admin-quote-basis"
            data-basis={config.quote.basis}
          />
        ) : null}
      </Box>
      <Typography variant="body2" color="text.secondary">
        {config.filament} · {config.layerHeightMm.toFixed(2)} mm layers · {config.infillPercent}% infill
        {config.isMultipart ? ` · ${config.parts.length} parts` : ''}
        {config.multicolour ? ' · multicolour' : ''}
      </Typography>
      {config.quote ? (
        <>
          <Typography sx={{ mt: 1, fontWeight: 700 }} data-testid="admin-quote">
            {formatQuoteLine(config.quote)}
          </Typography>
          <Typography variant="caption" color="text.secondary">
            {config.quote.basisNote}
          </Typography>
        </>
      ) : (
        <Typography sx={{ mt: 1 }} color="text.secondary">
          No quote yet
        </Typography>
      )}
      <Box
        component="form"
        id={formId}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
        sx={{ mt: 2, display: 'grid', gridTemplateColumns: '1fr 1fr', gap: 1.5 }}
        aria-label={`Exact cost data for ${config.name}`}
      >
        <TextField
          size="small"
          label="Grams"
          {...field('grams')}
          slotProps={{ htmlInput: { inputMode: 'decimal', 'data-testid': 'cost-grams' } }}
        />
        <TextField
          size="small"
          label="Print time (h:mm)"
          placeholder="1:30"
          {...field('printTime')}
          slotProps={{ htmlInput: { 'data-testid': 'cost-time' } }}
        />
        <TextField
          size="small"
          label="Cost override ($, optional)"
          {...field('costUsd')}
          slotProps={{ htmlInput: { inputMode: 'decimal', 'data-testid': 'cost-usd' } }}
          sx={{ gridColumn: '1 / -1' }}
        />
        <TextField
          size="small"
          label="Note (optional)"
          {...field('note')}
          slotProps={{ htmlInput: { maxLength: 500 } }}
          sx={{ gridColumn: '1 / -1' }}
        />
        <Box sx={{ gridColumn: '1 / -1', display: 'flex', gap: 1, flexWrap: 'wrap' }}>
          <Button
            type="submit"
            variant="contained"
            size="small"
            disabled={setCostData.isPending}
            data-testid="save-cost-data"
          >
            Save cost data
          </Button>
          {design.format === '3mf' ? (
            <Button
              size="small"
              variant="outlined"
              disabled={placeholder.isPending}
              onClick={() =>
                placeholder.mutate(
                  { designId: design.id, printConfigId: config.id },
                  {
                    onSuccess: () => showToast(`Placeholder cost set for “${config.name}”`),
                    onError: (error) => showToast(error.message, 'error'),
                  },
                )
              }
            >
              Placeholder cost
            </Button>
          ) : null}
        </Box>
      </Box>
    </Paper>
  );
}
