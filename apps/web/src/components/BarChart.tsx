import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';

export interface BarDatum {
  label: string;
  value: number;
}

const VIEW_WIDTH = 720;
const VIEW_HEIGHT = 220;
const AXIS_GUTTER = 28;

/**
 * A small dependency-free SVG bar chart: one bar per datum, scaled to the largest value,
 * with a native tooltip per bar. Enough for "views per day"; not a charting library.
 */
export function BarChart({
  data,
  ariaLabel,
  formatLabel,
}: {
  data: readonly BarDatum[];
  ariaLabel: string;
  formatLabel?(label: string): string;
}) {
  const theme = useTheme();
  const max = Math.max(1, ...data.map((datum) => datum.value));
  const slot = data.length > 0 ? (VIEW_WIDTH - AXIS_GUTTER) / data.length : 0;
  const barWidth = Math.max(2, slot * 0.7);
  const plotHeight = VIEW_HEIGHT - 24;
  const first = data[0];
  const last = data[data.length - 1];

  return (
    <Box>
      <Box
        component="svg"
        viewBox={`0 0 ${VIEW_WIDTH} ${VIEW_HEIGHT}`}
        role="img"
        aria-label={ariaLabel}
        sx={{ width: '100%', height: 'auto', display: 'block' }}
      >
        {[0, 0.5, 1].map((fraction) => {
          const y = plotHeight - fraction * (plotHeight - 8);
          return (
            <g key={fraction}>
              <line
                x1={AXIS_GUTTER}
                x2={VIEW_WIDTH}
                y1={y}
                y2={y}
                stroke={theme.palette.divider}
                strokeDasharray="4 4"
              />
              <text
                x={AXIS_GUTTER - 6}
                y={y + 4}
                textAnchor="end"
                fontSize="11"
                fill={theme.palette.text.secondary}
              >
                {Math.round(max * fraction)}
              </text>
            </g>
          );
        })}
        {data.map((datum, index) => {
          const height = (datum.value / max) * (plotHeight - 8);
          const x = AXIS_GUTTER + index * slot + (slot - barWidth) / 2;
          return (
            <rect
              key={datum.label}
              x={x}
              y={plotHeight - height}
              width={barWidth}
              height={Math.max(height, datum.value > 0 ? 2 : 0)}
              rx={2}
              fill={theme.palette.primary.main}
            >
              <title>{`${formatLabel ? formatLabel(datum.label) : datum.label}: ${datum.value}`}</title>
            </rect>
          );
        })}
      </Box>
      {first && last ? (
        <Box
          sx={{
            display: 'flex',
            justifyContent: 'space-between',
            pl: `${(AXIS_GUTTER / VIEW_WIDTH) * 100}%`,
          }}
        >
          <Typography variant="caption" color="text.secondary">
            {formatLabel ? formatLabel(first.label) : first.label}
          </Typography>
          <Typography variant="caption" color="text.secondary">
            {formatLabel ? formatLabel(last.label) : last.label}
          </Typography>
        </Box>
      ) : null}
    </Box>
  );
}
