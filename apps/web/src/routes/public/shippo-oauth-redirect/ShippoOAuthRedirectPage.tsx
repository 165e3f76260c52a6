import { Link as RouterLink, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Container from '@mui/material/Container';
import Typography from '@mui/material/Typography';
import LocalShippingIcon from '@mui/icons-material/LocalShipping';

/**
 * Where Shippo sends a seller back after they authorise the connection (§7: exchangeShippoToken
 * takes the `code`). The shipping capability that exchanges the code has not shipped yet, so the
 * page says so honestly and never shows or stores the code.
 */
export default function ShippoOAuthRedirectPage() {
  const [params] = useSearchParams();
  const hasCode = Boolean(params.get('code'));
  const shippoError = params.get('error');

  return (
    <Container maxWidth="sm" sx={{ py: { xs: 8, md: 12 } }}>
      <Box
        sx={{
          p: { xs: 3, md: 5 },
          borderRadius: 4,
          border: 1,
          borderColor: 'divider',
          bgcolor: 'background.paper',
        }}
      >
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
            <LocalShippingIcon />
          </Box>
          <Chip label="Not available yet" color="primary" variant="outlined" size="small" />
        </Box>
        <Typography variant="h4" component="h1">
          Connecting Shippo
        </Typography>
        {shippoError ? (
          <Alert severity="warning" sx={{ mt: 2 }} data-testid="shippo-status">
            Shippo reported that the connection was not authorised ({shippoError}). Nothing was changed on
            your account.
          </Alert>
        ) : (
          <Alert severity="info" sx={{ mt: 2 }} data-testid="shippo-status">
            {hasCode
              ? 'Shippo sent you back with an authorisation, but this instance cannot use it yet. It was not stored, and your account is unchanged.'
              : 'This page finishes a Shippo connection, but no authorisation arrived with this visit.'}
          </Alert>
        )}
        <Typography color="text.secondary" sx={{ mt: 2.5 }}>
          Connecting your own Shippo account, so labels are bought with your Shippo rates, arrives with
          Layerline’s shipping capability. Until then there is nothing to set up here: you can carry on from
          your dashboard.
        </Typography>
        <Button
          component={RouterLink}
          to="/dashboard"
          variant="contained"
          sx={{ mt: 3, borderRadius: 999, px: 3 }}
        >
          Go to your dashboard
        </Button>
      </Box>
    </Container>
  );
}
