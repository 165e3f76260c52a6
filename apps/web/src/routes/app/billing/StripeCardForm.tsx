import { useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import { useTheme } from '@mui/material/styles';
import { CardElement, Elements, useElements, useStripe } from '@stripe/react-stripe-js';
import type { StoredCardDto } from '@layerline/contracts';
import { createSetupIntent, useStoreDefaultPaymentMethod } from '../../../api/payments.ts';
import { useLoadedStripe } from './stripe-loader.ts';

export interface CardFormProps {
  publishableKey: string | null;
  onSaved(card: StoredCardDto): void;
  onCancel?: () => void;
}

/**
 * The card form with Stripe Elements (loaded as its own chunk): the card never touches our server.
 * A fresh SetupIntent per card; Stripe confirms it (3-D Secure if the bank asks), and the payment
 * method it answers becomes the seller's default.
 */
export default function StripeCardForm({ publishableKey, onSaved, onCancel }: CardFormProps) {
  const stripe = useLoadedStripe(publishableKey);
  if ('error' in stripe) return <Alert severity="error">{stripe.error}</Alert>;
  if (!stripe.stripe) return <LinearProgress aria-label="Loading the card form" />;
  return (
    <Elements stripe={stripe.stripe}>
      <CardEntry onSaved={onSaved} onCancel={onCancel} />
    </Elements>
  );
}

function CardEntry({ onSaved, onCancel }: Omit<CardFormProps, 'publishableKey'>) {
  const stripe = useStripe();
  const elements = useElements();
  const theme = useTheme();
  const store = useStoreDefaultPaymentMethod();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [complete, setComplete] = useState(false);
  const busy = confirming || store.isPending;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const card = elements?.getElement(CardElement);
    if (!stripe || !card) return;
    setError(null);
    setConfirming(true);
    try {
      const intent = await createSetupIntent();
      const result = await stripe.confirmCardSetup(intent.clientSecret, { payment_method: { card } });
      if (result.error) {
        setError(result.error.message ?? 'Your card was not accepted.');
        return;
      }
      const method = result.setupIntent.payment_method;
      const paymentMethodId = typeof method === 'string' ? method : method?.id;
      if (!paymentMethodId) {
        setError('Stripe did not return the card. Please try again.');
        return;
      }
      onSaved(await store.mutateAsync(paymentMethodId));
      card.clear();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'The card was not saved.');
    } finally {
      setConfirming(false);
    }
  }

  return (
    <Box component="form" noValidate onSubmit={(event) => void submit(event)} data-testid="stripe-card-form">
      <Box
        sx={{
          border: 1,
          borderColor: error ? 'error.main' : 'divider',
          borderRadius: 1,
          px: 1.5,
          py: 1.75,
          '&:focus-within': { borderColor: 'primary.main' },
        }}
      >
        <CardElement
          onChange={(change) => {
            setComplete(change.complete);
            setError(change.error?.message ?? null);
          }}
          options={{
            hidePostalCode: true,
            style: {
              base: {
                fontSize: '16px',
                color: theme.palette.text.primary,
                fontFamily: theme.typography.fontFamily,
                '::placeholder': { color: theme.palette.text.secondary },
              },
              invalid: { color: theme.palette.error.main },
            },
          }}
        />
      </Box>
      {error ? (
        <Alert severity="error" sx={{ mt: 1.5 }} role="alert">
          {error}
        </Alert>
      ) : null}
      <Box sx={{ display: 'flex', gap: 1, justifyContent: 'flex-end', mt: 2 }}>
        {onCancel ? (
          <Button onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
        ) : null}
        <Button type="submit" variant="contained" disabled={!stripe || !complete || busy}>
          {busy ? 'Saving…' : 'Save card'}
        </Button>
      </Box>
    </Box>
  );
}
