import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import type { FulfillmentMonthly } from '@layerline/contracts';
import { money } from '../orders/order-format.ts';

type Month = FulfillmentMonthly['months'][number];

const WIDTH = 720;
const HEIGHT = 150;
const PLOT_TOP = 8;
const PLOT_BOTTOM = HEIGHT - 22;

/** "2026-03" → "Mar 2026" (the month is UTC, as the server groups it). */
export function monthLabel(month: string): string {
  const [year, index] = month.split('-').map(Number);
  return new Date(Date.UTC(year!, index! - 1, 1)).toLocaleDateString(undefined, { month: 'short', year: 'numeric', timeZone: 'UTC' });
}

/**
 * Shipments and spend per month as pairs of bars, each series scaled to its own largest month (the
 * two have different units; the tooltips and the legend give the numbers). Dependency-free SVG.
 */
export function MonthlyChart({ months }: { months: readonly Month[] }) {
  const theme = useTheme();
  if (months.length === 0) return null;
  const peakShipments = Math.max(...months.map((m) => m.shipments));
  const peakSpend = Math.max(...months.map((m) => m.spendCents));
  const slot = WIDTH / months.length;
  const bar = Math.max(2, Math.min(28, slot * 0.35));
  const height = (fraction: number) => fraction * (PLOT_BOTTOM - PLOT_TOP);
  // Every month's name fits up to a year and a half; beyond that, every few months.
  const labelEvery = Math.ceil(months.length / 18);
  const totalShipments = months.reduce((sum, m) => sum + m.shipments, 0);
  const totalSpend = months.reduce((sum, m) => sum + m.spendCents, 0);

  return (
    <Box data-testid="monthly-chart">
      <Box
        component="svg"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`Shipments and spend per month, ${monthLabel(months[0]!.month)} to ${monthLabel(months.at(-1)!.month)}: ${totalShipments} shipments, ${money(totalSpend, 'USD')}`}
        sx={{ width: '100%', height: 'auto', display: 'block' }}
      >
        <line x1={0} x2={WIDTH} y1={PLOT_BOTTOM} y2={PLOT_BOTTOM} stroke={theme.palette.divider} />
        {months.map((m, index) => {
          const x = index * slot + slot / 2;
          const shipments = height(m.shipments / Math.max(1, peakShipments));
          const spend = height(m.spendCents / Math.max(1, peakSpend));
          return (
            <g key={m.month}>
              <title>{`${monthLabel(m.month)}: ${m.shipments} shipment${m.shipments === 1 ? '' : 's'}, ${money(m.spendCents, 'USD')}`}</title>
              <rect x={x - bar - 1} y={PLOT_BOTTOM - shipments} width={bar} height={shipments} rx={2} fill={theme.palette.primary.main} />
              <rect x={x + 1} y={PLOT_BOTTOM - spend} width={bar} height={spend} rx={2} fill={theme.palette.secondary.main} />
              {index % labelEvery === 0 ? (
                <text x={x} y={HEIGHT - 6} textAnchor="middle" fontSize="11" fill={theme.palette.text.secondary}>
                  {monthLabel(m.month)}
                </text>
              ) : null}
            </g>
          );
        })}
      </Box>
      <Box sx={{ display: 'flex', gap: 3, mt: 1, flexWrap: 'wrap' }}>
        <Legend colour={theme.palette.primary.main} text={`Shipments (${totalShipments.toLocaleString()}; busiest month ${peakShipments.toLocaleString()})`} />
        <Legend colour={theme.palette.secondary.main} text={`Spend (${money(totalSpend, 'USD')}; highest month ${money(peakSpend, 'USD')})`} />
      </Box>
    </Box>
  );
}

function Legend({ colour, text }: { colour: string; text: string }) {
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
      <Box sx={{ width: 12, height: 12, borderRadius: 0.5, bgcolor: colour }} />
      <Typography variant="caption" color="text.secondary">
        {text}
      </Typography>
    </Box>
  );
}
