import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Divider from '@mui/material/Divider';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { PrintConfig, Quote } from '@layerline/contracts';
import { BASIS_LABELS, formatGrams, formatPrintTime, formatUsd } from '../design-format.ts';

const BASIS_COLOURS = { estimate: 'default', slicer: 'info', admin: 'success' } as const;

export interface QuotePanelProps {
  quote: Quote | null;
  /** The quote prices unsaved changes (a what-if estimate). */
  preview: boolean;
  /** A new estimate is on its way. */
  updating: boolean;
  /** Some unsaved changes (add-ons, parts) are only priced on save. */
  pricedOnSave: boolean;
  slicing: PrintConfig['slicing'];
  error?: string | null;
}

/** The price of one printed unit: the total, grams and time, the breakdown, and what it rests on. */
export function QuotePanel({ quote, preview, updating, pricedOnSave, slicing, error }: QuotePanelProps) {
  return (
    <Paper
      variant="outlined"
      sx={{ p: 2, borderRadius: 2, position: { md: 'sticky' }, top: { md: 16 } }}
      data-testid="quote-panel"
      aria-live="polite"
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <Typography variant="overline" color="text.secondary" sx={{ lineHeight: 1.5 }}>
          Cost per unit
        </Typography>
        {quote ? (
          <Chip
            size="small"
            label={BASIS_LABELS[quote.basis]}
            color={BASIS_COLOURS[quote.basis]}
            data-testid="quote-basis"
            data-basis={quote.basis}
          />
        ) : null}
        {preview ? (
          <Chip size="small" color="warning" variant="outlined" label="Preview · not saved" />
        ) : null}
        {updating ? <CircularProgress size={16} aria-label="Updating the quote" /> : null}
      </Box>
      {quote ? (
        <>
          <Typography
            variant="h3"
            component="p"
            sx={{ fontWeight: 700, my: 0.5, opacity: updating ? 0.6 : 1 }}
            data-testid="quote-cost"
          >
            {formatUsd(quote.costUsd)}
          </Typography>
          <Typography color="text.secondary" data-testid="quote-summary">
            {formatGrams(quote.grams)} of filament · {formatPrintTime(quote.printSeconds)} print time
          </Typography>
          {quote.breakdown.length > 0 ? (
            <Box
              component="table"
              sx={{ width: '100%', borderCollapse: 'collapse', mt: 1.5, '& td': { py: 0.5, fontSize: 14 } }}
              aria-label="Quote breakdown"
            >
              <tbody>
                {quote.breakdown.map((line) => (
                  <tr key={line.label}>
                    <Box component="td" sx={{ color: 'text.secondary' }}>
                      {line.label}
                    </Box>
                    <Box component="td" sx={{ textAlign: 'right', fontVariantNumeric: 'tabular-nums' }}>
                      {formatUsd(line.amountUsd)}
                    </Box>
                  </tr>
                ))}
              </tbody>
            </Box>
          ) : null}
          <Divider sx={{ my: 1.5 }} />
          <Typography variant="body2" color="text.secondary" data-testid="quote-basis-note">
            {quote.basisNote}
          </Typography>
        </>
      ) : (
        <Typography color="text.secondary" sx={{ my: 1 }}>
          No quote yet for this configuration.
        </Typography>
      )}
      {pricedOnSave ? (
        <Alert severity="info" sx={{ mt: 1.5 }}>
          Add-on and part changes are priced when you save.
        </Alert>
      ) : null}
      {slicing.status === 'queued' || slicing.status === 'running' ? (
        <Alert severity="info" icon={<CircularProgress size={18} />} sx={{ mt: 1.5 }}>
          {slicing.status === 'queued' ? 'Waiting for the slicer' : 'Slicing'}: an exact quote replaces this
          estimate when it is done.
        </Alert>
      ) : null}
      {slicing.status === 'failed' ? (
        <Alert severity="warning" sx={{ mt: 1.5 }}>
          Exact slicing failed{slicing.error ? `: ${slicing.error}` : ''}. The estimate stands.
        </Alert>
      ) : null}
      {error ? (
        <Alert severity="error" sx={{ mt: 1.5 }}>
          {error}
        </Alert>
      ) : null}
    </Paper>
  );
}
