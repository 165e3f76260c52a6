import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link as RouterLink, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Container from '@mui/material/Container';
import Typography from '@mui/material/Typography';
import LocalShippingIcon from '@mui/icons-material/LocalShipping';
import { exchangeShippoToken, shippingKeys } from '../../../api/shipping.ts';
import { useAuth } from '../../../app/auth/AuthProvider.tsx';

/** Shippo's OAuth error codes in words (anything else is shown as Shippo sent it). */
const SHIPPO_ERRORS: Record<string, string> = {
  access_denied: 'the access was declined on Shippo',
  invalid_request: 'Shippo found the request incomplete',
  unauthorized_client: 'this server may not ask Shippo for access',
  server_error: 'Shippo had a problem on its side',
  temporarily_unavailable: 'Shippo is busy right now',
};

/**
 * Where Shippo sends a seller back after they approve the connection: the `code` and `state` are
 * exchanged once (POST /api/shippo/exchange-token, the spec's exchangeShippoToken) for the seller's
 * access. The page is public (Shippo decides where the browser lands), but the exchange needs the
 * signed-in seller the state was made for. The code is never shown.
 */
export default function ShippoOAuthRedirectPage() {
  const [params] = useSearchParams();
  const auth = useAuth();
  const code = params.get('code') ?? '';
  const state = params.get('state') ?? '';
  const shippoError = params.get('error');
  const queryClient = useQueryClient();

  const canExchange = !shippoError && Boolean(code) && Boolean(state) && auth.isAuthenticated;
  // A query, not an effect: one exchange per code and state, however often the page renders or mounts.
  const exchange = useQuery({
    queryKey: ['shipping', 'shippo-exchange', code, state],
    queryFn: async () => {
      const connection = await exchangeShippoToken({ code, state });
      void queryClient.invalidateQueries({ queryKey: shippingKeys.shippoConnection(undefined) });
      void queryClient.invalidateQueries({ queryKey: shippingKeys.settings(undefined) });
      return connection;
    },
    enabled: canExchange,
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });

  let body;
  if (shippoError) {
    body = (
      <Alert severity="warning" data-testid="shippo-status">
        Shippo did not connect: {SHIPPO_ERRORS[shippoError] ?? shippoError}. Nothing was changed on your account;
        you can try again from Account settings.
      </Alert>
    );
  } else if (!code || !state) {
    body = (
      <Alert severity="info" data-testid="shippo-status">
        This page finishes a Shippo connection, but Shippo’s answer did not come with this visit. Start the
        connection from Account settings → Shipping.
      </Alert>
    );
  } else if (auth.loading) {
    body = <Progress text="Checking your session…" />;
  } else if (!auth.isAuthenticated) {
    body = (
      <Alert severity="info" data-testid="shippo-status">
        Sign in to finish connecting Shippo. The connection belongs to the account that started it: sign in
        with that account and come back to this page within 10 minutes (or start again from Account
        settings → Shipping).
      </Alert>
    );
  } else if (exchange.isPending) {
    body = <Progress text="Connecting your Shippo account…" />;
  } else if (exchange.isError) {
    body = (
      <Alert severity="error" data-testid="shippo-status">
        Shippo could not be connected: {exchange.error.message.replace(/[.!?]$/, '')}. Nothing was stored; start
        again from Account settings → Shipping.
      </Alert>
    );
  } else {
    body = (
      <Alert severity="success" data-testid="shippo-status">
        Your Shippo account is connected. You can now choose Shippo to buy your labels.
      </Alert>
    );
  }

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
        <Box
          sx={{
            width: 56,
            height: 56,
            borderRadius: 3,
            display: 'grid',
            placeItems: 'center',
            bgcolor: 'primary.main',
            color: 'primary.contrastText',
            mb: 3,
          }}
        >
          <LocalShippingIcon />
        </Box>
        <Typography variant="h4" component="h1" sx={{ mb: 2 }}>
          Connecting Shippo
        </Typography>
        {body}
        {auth.isAuthenticated || auth.loading ? (
          <Button
            component={RouterLink}
            to="/account-settings"
            variant="contained"
            disabled={exchange.isFetching}
            sx={{ mt: 3, borderRadius: 999, px: 3 }}
          >
            Back to Account settings
          </Button>
        ) : (
          <Button component={RouterLink} to="/login" variant="contained" sx={{ mt: 3, borderRadius: 999, px: 3 }}>
            Sign in
          </Button>
        )}
      </Box>
    </Container>
  );
}

function Progress({ text }: { text: string }) {
  return (
    <Box sx={{ display: 'flex', gap: 1.5, alignItems: 'center' }} data-testid="shippo-status" role="status">
      <CircularProgress size={20} />
      <Typography>{text}</Typography>
    </Box>
  );
}
