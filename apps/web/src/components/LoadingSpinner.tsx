import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';

/**
 * A centred spinner for content that is on its way. Gated routes use it with
 * testId "auth-spinner" while the auth state is still unknown (§2).
 */
export function LoadingSpinner({ label, testId = 'page-spinner' }: { label: string; testId?: string }) {
  return (
    <Box sx={{ display: 'flex', justifyContent: 'center', alignItems: 'center', minHeight: '40vh', py: 6 }}>
      <CircularProgress role="progressbar" aria-label={label} data-testid={testId} color="primary" />
    </Box>
  );
}
