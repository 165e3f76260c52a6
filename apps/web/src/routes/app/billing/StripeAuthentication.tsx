import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import { useLoadedStripe } from './stripe-loader.ts';

/**
 * Stripe's part of the authentication page (its own chunk): stripe.confirmCardPayment opens the
 * bank's 3-D Secure window for the PaymentIntent. Whatever the bank says, the server is then asked
 * to read the PaymentIntent back, so the charge (and the order) follow the bank's answer at once.
 */
export default function StripeAuthentication({
  publishableKey,
  clientSecret,
  busy,
  onAuthenticated,
}: {
  publishableKey: string | null;
  clientSecret: string | null;
  busy: boolean;
  onAuthenticated(): void;
}) {
  const stripe = useLoadedStripe(publishableKey);
  const [running, setRunning] = useState(false);
  const [bankError, setBankError] = useState<string | null>(null);

  if ('error' in stripe) return <Alert severity="error">{stripe.error}</Alert>;
  if (!clientSecret) return <Alert severity="info">There is nothing to confirm for this payment any more.</Alert>;
  const loadedStripe = stripe.stripe;

  async function authenticate() {
    if (!loadedStripe || !clientSecret) return;
    setRunning(true);
    setBankError(null);
    try {
      const result = await loadedStripe.confirmCardPayment(clientSecret);
      if (result.error) setBankError(result.error.message ?? 'Your bank did not confirm the payment.');
    } finally {
      setRunning(false);
      onAuthenticated();
    }
  }

  return (
    <Box sx={{ display: 'grid', gap: 2 }}>
      {bankError ? <Alert severity="error">{bankError}</Alert> : null}
      <Box>
        <Button variant="contained" disabled={!loadedStripe || running || busy} onClick={() => void authenticate()}>
          Confirm with your bank
        </Button>
      </Box>
      {!loadedStripe || running || busy ? <LinearProgress aria-label="Waiting for your bank" /> : null}
    </Box>
  );
}
