import { useMemo } from 'react';
import { useParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Container from '@mui/material/Container';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import LocalShippingIcon from '@mui/icons-material/LocalShipping';
import { useTracking } from '../../../api/shipping.ts';

/** A tracking status code ("in_transit") in words ("In transit"); words are kept as they are. */
function trackingStatusWords(status: string): string {
  const words = status.replaceAll('_', ' ').trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : 'Unknown';
}

/** /tracking/:trackingNumber: where a parcel is, for anyone with its tracking number. */
export default function TrackingPage() {
  const { trackingNumber = '' } = useParams();
  const tracking = useTracking(trackingNumber);
  const events = useMemo(
    () =>
      [...(tracking.data?.events ?? [])].sort(
        (a, b) => new Date(b.occurredAt).getTime() - new Date(a.occurredAt).getTime(),
      ),
    [tracking.data],
  );

  return (
    <Container maxWidth="sm" sx={{ py: { xs: 6, md: 10 } }}>
      <Box
        sx={{
          p: { xs: 3, md: 5 },
          borderRadius: 4,
          border: 1,
          borderColor: 'divider',
          bgcolor: 'background.paper',
        }}
      >
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 2 }}>
          <Box
            sx={{
              width: 56,
              height: 56,
              borderRadius: 3,
              display: 'grid',
              placeItems: 'center',
              bgcolor: 'primary.main',
              color: 'primary.contrastText',
              flexShrink: 0,
            }}
          >
            <LocalShippingIcon />
          </Box>
          <Box sx={{ minWidth: 0 }}>
            <Typography variant="h4" component="h1">
              Track a parcel
            </Typography>
            <Typography color="text.secondary" sx={{ wordBreak: 'break-all', fontFamily: 'monospace' }}>
              {trackingNumber}
            </Typography>
          </Box>
        </Box>
        {tracking.isPending ? <Skeleton variant="rounded" height={160} aria-label="Loading the tracking" /> : null}
        {tracking.isError ? (
          <Alert severity="error">The tracking could not be read: {tracking.error.message}</Alert>
        ) : null}
        {tracking.data === null ? (
          <Alert severity="info" data-testid="tracking-unknown">
            We do not know this tracking number. Check it against the shipping email; a label bought a moment ago
            may take a few minutes to appear.
          </Alert>
        ) : null}
        {tracking.data ? (
          <Box data-testid="tracking-result">
            <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', mb: 2 }}>
              <Chip
                label={trackingStatusWords(tracking.data.status)}
                color={tracking.data.delivered ? 'success' : 'info'}
                data-testid="tracking-status"
              />
              <Typography variant="body2">
                {tracking.data.carrier}
                {tracking.data.service ? ` · ${tracking.data.service}` : ''}
              </Typography>
            </Box>
            {events.length === 0 ? (
              <Alert severity="info">The carrier has not reported anything yet.</Alert>
            ) : (
              <Box component="ol" sx={{ listStyle: 'none', p: 0, m: 0 }} data-testid="tracking-events">
                {events.map((event, index) => (
                  <Box
                    component="li"
                    key={`${event.occurredAt}-${index}`}
                    sx={{
                      borderLeft: 2,
                      borderColor: index === 0 ? 'primary.main' : 'divider',
                      pl: 2,
                      pb: 1.5,
                    }}
                  >
                    <Typography variant="body2" sx={{ fontWeight: 600 }}>
                      {event.description || trackingStatusWords(event.status)}
                    </Typography>
                    <Typography variant="caption" color="text.secondary">
                      {new Date(event.occurredAt).toLocaleString()}
                      {event.location ? ` · ${event.location}` : ''}
                    </Typography>
                  </Box>
                ))}
              </Box>
            )}
          </Box>
        ) : null}
      </Box>
    </Container>
  );
}
