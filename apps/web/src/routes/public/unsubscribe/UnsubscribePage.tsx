import { useSearchParams } from 'react-router';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import Link from '@mui/material/Link';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import MarkEmailReadOutlinedIcon from '@mui/icons-material/MarkEmailReadOutlined';
import { useUnsubscribe, useUnsubscribeStatus } from '../../../api/notifications.ts';

/** /unsubscribe?token=…: an email's unsubscribe link. Opening it changes nothing; the button does. */
export default function UnsubscribePage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token') ?? '';
  const status = useUnsubscribeStatus(token);
  const unsubscribe = useUnsubscribe(token);
  const data = status.data;

  return (
    <Container maxWidth="sm" sx={{ py: { xs: 6, md: 10 } }}>
      <Box sx={{ p: { xs: 3, md: 5 }, borderRadius: 4, border: 1, borderColor: 'divider', bgcolor: 'background.paper' }}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 3 }}>
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
            <MarkEmailReadOutlinedIcon />
          </Box>
          <Typography variant="h4" component="h1">
            Unsubscribe
          </Typography>
        </Box>
        {!token ? <Alert severity="warning">This page needs the link from an email. Open the unsubscribe link in the email again.</Alert> : null}
        {token && status.isPending ? <Skeleton variant="rounded" height={120} /> : null}
        {status.isError ? (
          <Alert severity="error">
            {status.error.message}. Open the link from the email again, or choose your emails in Account settings.
          </Alert>
        ) : null}
        {data ? (
          <Box data-testid="unsubscribe-state">
            {data.subscribed ? (
              <>
                <Typography sx={{ mb: 3 }}>
                  Stop sending <strong>{data.label}</strong> emails to {data.email}?
                </Typography>
                {unsubscribe.isError ? (
                  <Alert severity="error" sx={{ mb: 2 }}>
                    {unsubscribe.error.message}
                  </Alert>
                ) : null}
                <Button variant="contained" size="large" onClick={() => unsubscribe.mutate()} disabled={unsubscribe.isPending}>
                  {unsubscribe.isPending ? 'Unsubscribing…' : 'Unsubscribe'}
                </Button>
              </>
            ) : (
              <Alert severity="success">
                {data.email} no longer gets <strong>{data.label}</strong> emails. You can turn them back on in your account’s
                email settings.
              </Alert>
            )}
          </Box>
        ) : null}
        <Typography variant="body2" color="text.secondary" sx={{ mt: 4 }}>
          Choose every kind of email in{' '}
          <Link component={RouterLink} to="/account-settings#email-notifications">
            Account settings
          </Link>
          .
        </Typography>
      </Box>
    </Container>
  );
}
