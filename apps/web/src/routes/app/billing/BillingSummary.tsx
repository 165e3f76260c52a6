import { lazy, Suspense } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import CreditCardOutlinedIcon from '@mui/icons-material/CreditCardOutlined';
import { formatCents, type BillingSettings } from '@layerline/contracts';
import { SandboxCardForm } from './SandboxCardForm.tsx';
import type { CardFormProps } from './StripeCardForm.tsx';
import { cardLine, plural } from './charge-format.ts';

// Stripe.js and Elements are downloaded only when a seller opens the card form with Stripe keys set.
const StripeCardForm = lazy(() => import('./StripeCardForm.tsx'));

/** Said wherever payments show while no real money can move (Stripe test keys or the sandbox). */
export function TestModeChip({ testMode }: { testMode: boolean }) {
  if (!testMode) return null;
  return (
    <Chip
      size="small"
      color="warning"
      variant="outlined"
      label="Test mode — no real money moves"
      data-testid="payments-test-mode"
    />
  );
}

/** The card orders are charged to, or that there is none yet. */
export function CardOnFile({ card }: { card: BillingSettings['card'] }) {
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5 }} data-testid="card-on-file">
      <CreditCardOutlinedIcon color={card ? 'primary' : 'disabled'} />
      {card ? (
        <Typography sx={{ fontWeight: 600 }}>{cardLine(card)}</Typography>
      ) : (
        <Typography color="text.secondary">No card yet — orders wait until you add one</Typography>
      )}
    </Box>
  );
}

/** What needs the seller: orders held for payment, and payments their bank wants them to confirm. */
export function BillingAlerts({ settings, own }: { settings: BillingSettings; own: boolean }) {
  const { heldOrders, actionsNeeded } = settings;
  if (heldOrders === 0 && actionsNeeded.length === 0) return null;
  return (
    <Box sx={{ display: 'grid', gap: 1 }} data-testid="billing-alerts">
      {heldOrders > 0 ? (
        <Alert severity="warning" data-testid="held-orders">
          {plural(heldOrders, 'order is', 'orders are')} on hold until {heldOrders === 1 ? 'its' : 'their'} payment goes
          through.{' '}
          {own ? `Saving a card that works charges ${heldOrders === 1 ? 'it' : 'them'} again and releases ${heldOrders === 1 ? 'it' : 'them'}.` : null}
        </Alert>
      ) : null}
      {actionsNeeded.map((action) => (
        <Alert
          key={action.chargeId}
          severity="warning"
          data-testid="action-needed"
          action={
            own ? (
              <Button color="inherit" size="small" component={RouterLink} to={`/billing/authenticate/${action.chargeId}`}>
                Authenticate
              </Button>
            ) : undefined
          }
        >
          Your bank asks {own ? 'you' : 'the seller'} to confirm the payment of{' '}
          {formatCents(action.amountCents, action.currency)}
          {action.orderNumber ? ` for order ${action.orderNumber}` : ''}.
        </Alert>
      ))}
    </Box>
  );
}

/** The card form of the configured provider: Stripe Elements with keys, the sandbox's own without. */
export function CardForm({ settings, onSaved, onCancel }: { settings: BillingSettings } & Omit<CardFormProps, 'publishableKey'>) {
  if (settings.provider === 'sandbox') return <SandboxCardForm onSaved={onSaved} onCancel={onCancel} />;
  return (
    <Suspense fallback={<LinearProgress aria-label="Loading the card form" />}>
      <StripeCardForm publishableKey={settings.publishableKey} onSaved={onSaved} onCancel={onCancel} />
    </Suspense>
  );
}
