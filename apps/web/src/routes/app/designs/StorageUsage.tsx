import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import { formatBytes } from './design-format.ts';

/** How much of the seller's storage their files use; amber from 80 %, red when full. */
export function StorageUsage({ usedBytes, quotaBytes }: { usedBytes: number; quotaBytes: number }) {
  const fraction = quotaBytes > 0 ? Math.min(1, usedBytes / quotaBytes) : 0;
  const colour = fraction >= 1 ? 'error' : fraction >= 0.8 ? 'warning' : 'primary';
  return (
    <Box sx={{ minWidth: 200, flex: { xs: '1 1 100%', sm: '0 1 320px' } }} data-testid="storage-usage">
      <Box sx={{ display: 'flex', justifyContent: 'space-between', gap: 1, mb: 0.5 }}>
        <Typography variant="body2" color="text.secondary">
          Storage
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {formatBytes(usedBytes)} of {formatBytes(quotaBytes)}
        </Typography>
      </Box>
      <LinearProgress
        variant="determinate"
        value={fraction * 100}
        color={colour}
        sx={{ height: 8, borderRadius: 4 }}
        aria-label={`Storage used: ${formatBytes(usedBytes)} of ${formatBytes(quotaBytes)}`}
      />
    </Box>
  );
}
