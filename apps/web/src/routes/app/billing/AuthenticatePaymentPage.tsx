import { lazy, Suspense, type ReactNode } from 'react';
import { Link as RouterLink, useParams } from 'react-router';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import LinearProgress from '@mui/material/LinearProgress';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import type { ChargeAuthentication, ChargeDto } from '@layerline/contracts';
import { useChargeAuthentication, useConfirmCharge } from '../../../api/payments.ts';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { chargeMoney } from './charge-format.ts';

// Stripe.js is downloaded only when a Stripe payment is being authenticated.
const StripeAuthentication = lazy(() => import('./StripeAuthentication.tsx'));

/**
 * /billing/authenticate/:chargeId: the seller confirms, with their bank, a payment that was charged
 * while they were away (3-D Secure). With Stripe the bank's own window opens; in the sandbox a
 * test-mode panel stands in for the bank. Then the outcome: paid (the order goes to production) or
 * failed (another card is needed).
 */
export default function AuthenticatePaymentPage() {
  const { chargeId = '' } = useParams();
  const authentication = useChargeAuthentication(chargeId);
  const confirm = useConfirmCharge();
  // Whichever is newer: the confirmation's answer, or the charge as (re)loaded since.
  const loaded = authentication.data?.charge;
  const charge = confirm.data && (!loaded || confirm.data.updatedAt > loaded.updatedAt) ? confirm.data : loaded;

  return (
    <Box sx={{ maxWidth: 720 }}>
      <PageHeading title="Confirm a payment" subtitle="Your bank asks you to confirm a payment before the order goes into production." />
      {authentication.isPending ? <Skeleton variant="rounded" height={180} /> : null}
      {authentication.isError ? (
        <Box sx={{ display: 'grid', gap: 2, justifyItems: 'start' }}>
          <Alert severity="error" sx={{ justifySelf: 'stretch' }}>
            {authentication.error.message}
          </Alert>
          <LinkButton to="/billing">See your charges</LinkButton>
        </Box>
      ) : null}
      {authentication.data && charge ? (
        <Card variant="outlined">
          <CardContent sx={{ display: 'grid', gap: 2 }}>
            {charge.status === 'requires_action' ? (
              <Authenticate
                authentication={authentication.data}
                busy={confirm.isPending}
                error={confirm.error?.message ?? null}
                onConfirm={(sandboxOutcome) => confirm.mutate({ chargeId: charge.id, sandboxOutcome })}
              />
            ) : (
              <Outcome charge={charge} justConfirmed={confirm.isSuccess} />
            )}
          </CardContent>
        </Card>
      ) : null}
    </Box>
  );
}

function Authenticate({
  authentication,
  busy,
  error,
  onConfirm,
}: {
  authentication: ChargeAuthentication;
  busy: boolean;
  error: string | null;
  onConfirm(sandboxOutcome?: 'approve' | 'refuse'): void;
}) {
  const { charge } = authentication;
  const what = `${chargeMoney(charge, charge.amountCents)}${charge.orderNumber ? ` for order ${charge.orderNumber}` : ''}`;
  const errorAlert = error ? <Alert severity="error">{error}</Alert> : null;
  if (authentication.provider === 'sandbox') {
    return (
      <Box
        data-testid="sandbox-authentication"
        sx={{ border: 2, borderStyle: 'dashed', borderColor: 'warning.main', borderRadius: 2, p: 2.5, display: 'grid', gap: 2 }}
      >
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
          <Chip label="TEST MODE" color="warning" size="small" sx={{ fontWeight: 700, letterSpacing: 0.5 }} />
          <Typography variant="body2" color="text.secondary">
            This panel stands in for your bank&apos;s confirmation window. No real money moves.
          </Typography>
        </Box>
        <Typography variant="h6" component="p">
          Your bank asks you to confirm this payment of {what}.
        </Typography>
        {errorAlert}
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
          <Button variant="contained" disabled={busy} onClick={() => onConfirm('approve')}>
            Complete authentication
          </Button>
          <Button variant="outlined" color="error" disabled={busy} onClick={() => onConfirm('refuse')}>
            Fail authentication
          </Button>
        </Box>
        {busy ? <LinearProgress /> : null}
      </Box>
    );
  }
  return (
    <Box sx={{ display: 'grid', gap: 2 }}>
      <Typography variant="h6" component="p">
        Your bank asks you to confirm this payment of {what}.
      </Typography>
      {errorAlert}
      <Suspense fallback={<LinearProgress aria-label="Loading Stripe" />}>
        <StripeAuthentication
          publishableKey={authentication.publishableKey}
          clientSecret={authentication.clientSecret}
          busy={busy}
          onAuthenticated={() => onConfirm()}
        />
      </Suspense>
    </Box>
  );
}

function Outcome({ charge, justConfirmed }: { charge: ChargeDto; justConfirmed: boolean }) {
  const amount = chargeMoney(charge, charge.amountCents);
  const forOrder = charge.orderNumber ? ` for order ${charge.orderNumber}` : '';
  const orderCharge = charge.kind === 'order';
  let alert: ReactNode;
  let next: ReactNode = <LinkButton to="/billing">See your charges</LinkButton>;
  switch (charge.status) {
    case 'succeeded':
    case 'refunded':
      alert = (
        <Alert severity="success" data-testid="authentication-outcome">
          <AlertTitle>{justConfirmed ? 'Payment confirmed' : 'This payment is already done'}</AlertTitle>
          {amount} was paid{forOrder}.{orderCharge ? ' The order goes into production.' : ''}
        </Alert>
      );
      break;
    case 'failed':
      alert = (
        <Alert severity="error" data-testid="authentication-outcome">
          <AlertTitle>The payment failed</AlertTitle>
          {charge.failureReason ?? 'Your bank did not confirm the payment.'}{' '}
          {orderCharge
            ? `The order stays on hold until a card works: add another card and it is charged again.`
            : `Nothing was paid${forOrder}.`}
        </Alert>
      );
      next = (
        <>
          <LinkButton to="/account-settings#billing" primary>
            Add another card
          </LinkButton>
          {next}
        </>
      );
      break;
    default:
      alert = (
        <Alert severity="info" data-testid="authentication-outcome">
          <AlertTitle>Your bank is confirming the payment</AlertTitle>
          {amount}
          {forOrder} is being processed. This page and your Billing page show when it is done.
        </Alert>
      );
  }
  return (
    <>
      {alert}
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>{next}</Box>
    </>
  );
}

function LinkButton({ to, primary = false, children }: { to: string; primary?: boolean; children: ReactNode }) {
  return (
    <Button variant={primary ? 'contained' : 'outlined'} component={RouterLink} to={to}>
      {children}
    </Button>
  );
}
