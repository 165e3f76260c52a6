import { useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  SandboxCardError,
  createSandboxPaymentMethod,
  createSetupIntent,
  useStoreDefaultPaymentMethod,
} from '../../../api/payments.ts';
import type { CardFormProps } from './StripeCardForm.tsx';
import {
  SANDBOX_TEST_CARDS,
  formatCardNumber,
  formatExpiry,
  parseCardDraft,
  type CardDraft,
  type CardField,
} from './sandbox-card-form.ts';

const EMPTY: CardDraft = { number: '', expiry: '', cvc: '' };

/**
 * The card form without Stripe keys: the sandbox provider checks the card the way Stripe Elements
 * would and answers Stripe's test numbers as Stripe does. No real card is ever charged, and the form
 * says so.
 */
export function SandboxCardForm({ onSaved, onCancel }: Omit<CardFormProps, 'publishableKey'>) {
  const store = useStoreDefaultPaymentMethod();
  const [draft, setDraft] = useState<CardDraft>(EMPTY);
  const [errors, setErrors] = useState<Partial<Record<CardField, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const busy = checking || store.isPending;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(null);
    const parsed = parseCardDraft(draft);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    setChecking(true);
    try {
      // The same steps as with Stripe: a setup intent, the card turned into a payment method, stored.
      await createSetupIntent();
      const method = await createSandboxPaymentMethod(parsed.input);
      onSaved(await store.mutateAsync(method.paymentMethodId));
      setDraft(EMPTY);
    } catch (error) {
      if (error instanceof SandboxCardError && error.field) setErrors({ [error.field]: error.message });
      else setFormError(error instanceof Error ? error.message : 'The card was not saved.');
    } finally {
      setChecking(false);
    }
  }

  const field = (name: CardField) => ({
    error: Boolean(errors[name]),
    helperText: errors[name] ?? ' ',
    disabled: busy,
  });

  return (
    <Box
      component="form"
      noValidate
      onSubmit={(event) => void submit(event)}
      data-testid="sandbox-card-form"
      sx={{ border: 2, borderStyle: 'dashed', borderColor: 'warning.main', borderRadius: 2, p: 2 }}
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1.5, flexWrap: 'wrap' }}>
        <Chip label="TEST MODE" color="warning" size="small" sx={{ fontWeight: 700, letterSpacing: 0.5 }} />
        <Typography variant="body2" color="text.secondary">
          A practice card form: use a test card below. No real card is charged.
        </Typography>
      </Box>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr 1fr', sm: '2fr 1fr 1fr' } }}>
        <TextField
          label="Card number"
          name="cardNumber"
          value={draft.number}
          onChange={(e) => setDraft((d) => ({ ...d, number: formatCardNumber(e.target.value) }))}
          autoComplete="cc-number"
          placeholder="4242 4242 4242 4242"
          slotProps={{ htmlInput: { inputMode: 'numeric' } }}
          sx={{ gridColumn: { xs: '1 / -1', sm: 'auto' } }}
          {...field('number')}
        />
        <TextField
          label="Expiry (MM / YY)"
          name="expiry"
          value={draft.expiry}
          onChange={(e) => setDraft((d) => ({ ...d, expiry: formatExpiry(e.target.value, d.expiry) }))}
          autoComplete="cc-exp"
          placeholder="MM / YY"
          slotProps={{ htmlInput: { inputMode: 'numeric' } }}
          {...field('expiry')}
        />
        <TextField
          label="CVC"
          name="cvc"
          value={draft.cvc}
          onChange={(e) => setDraft((d) => ({ ...d, cvc: e.target.value.replace(/\D/g, '').slice(0, 4) }))}
          autoComplete="cc-csc"
          placeholder="123"
          slotProps={{ htmlInput: { inputMode: 'numeric' } }}
          {...field('cvc')}
        />
      </Box>
      <Box sx={{ mt: 0.5 }} data-testid="sandbox-test-cards">
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          Test cards (any future expiry, any 3-digit CVC; click one to fill it in)
        </Typography>
        <Box component="ul" sx={{ m: 0, mt: 1, pl: 0, listStyle: 'none', display: 'grid', gap: 0.5 }}>
          {SANDBOX_TEST_CARDS.map((card) => (
            <Box component="li" key={card.number} sx={{ display: 'flex', gap: 1.5, alignItems: 'baseline', flexWrap: 'wrap' }}>
              <Button
                size="small"
                variant="text"
                sx={{ fontFamily: 'monospace', minWidth: 0, p: 0.25 }}
                onClick={() => setDraft((d) => ({ ...d, number: card.number }))}
                disabled={busy}
                aria-label={`Use test card ${card.number}`}
              >
                {card.number}
              </Button>
              <Typography variant="body2" color="text.secondary">
                {card.behaviour}
              </Typography>
            </Box>
          ))}
        </Box>
      </Box>
      {formError ? (
        <Alert severity="error" sx={{ mt: 1.5 }}>
          {formError}
        </Alert>
      ) : null}
      <Box sx={{ display: 'flex', gap: 1, justifyContent: 'flex-end', mt: 2 }}>
        {onCancel ? (
          <Button onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
        ) : null}
        <Button type="submit" variant="contained" disabled={busy}>
          {busy ? 'Saving…' : 'Save card'}
        </Button>
      </Box>
    </Box>
  );
}
