import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Typography from '@mui/material/Typography';
import type { AffiliateConnect, ConnectStatus } from '@layerline/contracts';
import {
  useCompleteSandboxOnboarding,
  useConnectStatus,
  useOnboardingLink,
} from '../../../api/affiliates.ts';

export const CONNECT_LABELS: Readonly<Record<ConnectStatus, string>> = {
  none: 'Not set up',
  pending: 'Onboarding not finished',
  active: 'Payouts on',
  restricted: 'Stripe needs more details',
};

export const connectColor = (status: ConnectStatus): 'default' | 'success' | 'warning' =>
  status === 'active' ? 'success' : status === 'none' ? 'default' : 'warning';

const ACTION_LABEL: Readonly<Record<ConnectStatus, string>> = {
  none: 'Set up payouts',
  pending: 'Continue setup',
  restricted: 'Update details',
  active: 'Open onboarding again',
};

/** Stripe's requirement names read better with spaces ("external_account" → "external account"). */
const requirementText = (names: readonly string[]) =>
  names.map((name) => name.replaceAll('_', ' ').replaceAll('.', ' › ')).join(', ');

/** The button that sends the browser to onboarding (Stripe's pages, or the sandbox's own in test mode). */
function OnboardButton({
  status,
  variant = 'contained',
}: {
  status: ConnectStatus;
  variant?: 'contained' | 'outlined';
}) {
  const link = useOnboardingLink();
  return (
    <Box>
      <Button
        variant={variant}
        disabled={link.isPending}
        onClick={() => link.mutate(undefined, { onSuccess: ({ url }) => window.location.assign(url) })}
      >
        {link.isPending ? 'Opening…' : ACTION_LABEL[status]}
      </Button>
      {link.isError ? (
        <Alert severity="error" sx={{ mt: 1 }}>
          Failed to create onboarding link: {link.error.message}
        </Alert>
      ) : null}
    </Box>
  );
}

/** Back from onboarding (`?connect=return`): the account is read again and every outcome said. */
function ReturnNotice({ onDismiss }: { onDismiss(): void }) {
  const status = useConnectStatus(true);
  if (status.isPending)
    return (
      <Alert severity="info" icon={<CircularProgress size={18} />}>
        Checking your payouts account with Stripe…
      </Alert>
    );
  if (status.isError)
    return (
      <Alert severity="error" action={<Button onClick={() => void status.refetch()}>Try again</Button>}>
        Could not read your payouts account: {status.error.message}
      </Alert>
    );
  const connect = status.data;
  if (connect.status === 'active')
    return (
      <Alert severity="success" onClose={onDismiss} data-testid="connect-outcome">
        <AlertTitle>Payouts are set up</AlertTitle>
        Payable earnings are paid to your Stripe account in the monthly payout run.
      </Alert>
    );
  if (connect.status === 'restricted')
    return (
      <Alert
        severity="warning"
        data-testid="connect-outcome"
        action={<OnboardButton status="restricted" variant="outlined" />}
      >
        <AlertTitle>Stripe needs more details before paying out</AlertTitle>
        {connect.requirementsDue.length
          ? `Still due: ${requirementText(connect.requirementsDue)}.`
          : 'Stripe is checking what you sent.'}
      </Alert>
    );
  return (
    <Alert
      severity="warning"
      data-testid="connect-outcome"
      action={<OnboardButton status={connect.status} variant="outlined" />}
    >
      <AlertTitle>Onboarding is not finished</AlertTitle>
      Your earnings keep accruing; they are paid once you finish setting up payouts.
    </Alert>
  );
}

/** `?connect=refresh`: the onboarding link expired or was already used; a new one is made at once. */
function RefreshNotice() {
  const link = useOnboardingLink();
  const asked = useRef(false);
  useEffect(() => {
    if (asked.current) return;
    asked.current = true;
    link.mutate(undefined, { onSuccess: ({ url }) => window.location.replace(url) });
  }, [link]);
  if (link.isError)
    return (
      <Alert
        severity="error"
        action={
          <Button
            onClick={() => link.mutate(undefined, { onSuccess: ({ url }) => window.location.replace(url) })}
          >
            Try again
          </Button>
        }
      >
        Failed to create onboarding link: {link.error.message}
      </Alert>
    );
  return (
    <Alert severity="info" icon={<CircularProgress size={18} />}>
      That onboarding link has expired; opening a new one…
    </Alert>
  );
}

/** Test mode: the sandbox's stand-in for Stripe's onboarding pages (`?connect=sandbox&account=…`). */
function SandboxOnboarding({
  account,
  onLeave,
}: {
  account: string;
  onLeave(next: 'return' | 'refresh'): void;
}) {
  const complete = useCompleteSandboxOnboarding();
  const finish = (outcome: 'complete' | 'restricted') =>
    complete.mutate(outcome, { onSuccess: () => onLeave('return') });
  return (
    <Card variant="outlined" sx={{ borderColor: 'warning.main' }} data-testid="sandbox-onboarding">
      <CardContent>
        <Chip label="Test mode" color="warning" size="small" sx={{ mb: 1 }} />
        <Typography variant="h6" component="h2">
          Stripe Connect onboarding (sandbox)
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          No Stripe keys are configured, so this page stands in for Stripe&apos;s onboarding of account{' '}
          <Box component="code">{account}</Box>. No money moves. Choose what the account holder does:
        </Typography>
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1 }}>
          <Button variant="contained" disabled={complete.isPending} onClick={() => finish('complete')}>
            Complete onboarding
          </Button>
          <Button variant="outlined" disabled={complete.isPending} onClick={() => finish('restricted')}>
            Submit with a bank account that fails verification
          </Button>
          <Button disabled={complete.isPending} onClick={() => onLeave('return')}>
            Leave without finishing
          </Button>
          <Button disabled={complete.isPending} onClick={() => onLeave('refresh')}>
            Let the link expire
          </Button>
        </Box>
        {complete.isError ? (
          <Alert severity="error" sx={{ mt: 2 }}>
            {complete.error.message}
          </Alert>
        ) : null}
      </CardContent>
    </Card>
  );
}

/** Payouts through Stripe Connect: the account's state, the way to set it up, and the onboarding pages' outcomes. */
export function ConnectPanel({ connect }: { connect: AffiliateConnect }) {
  const [params, setParams] = useSearchParams();
  const step = params.get('connect');
  const account = params.get('account');
  const go = (next: 'return' | 'refresh' | null) =>
    setParams(next ? { connect: next } : {}, { replace: true });

  return (
    <Card>
      <CardContent sx={{ display: 'grid', gap: 2 }}>
        <Box
          sx={{
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'space-between',
            flexWrap: 'wrap',
            gap: 1,
          }}
        >
          <Box>
            <Typography variant="h6" component="h2">
              Payouts
            </Typography>
            <Typography variant="body2" color="text.secondary">
              Earnings are paid to a Stripe Connect account in a monthly run approved by the Layerline team.
            </Typography>
          </Box>
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
            {connect.testMode ? (
              <Chip label="Test mode" color="warning" size="small" variant="outlined" />
            ) : null}
            <Chip
              label={CONNECT_LABELS[connect.status]}
              color={connectColor(connect.status)}
              data-testid="connect-status"
            />
          </Box>
        </Box>
        {connect.payoutsHeld ? (
          <Alert severity="info">
            Payouts to you are on hold by the Layerline team; your earnings still accrue.
          </Alert>
        ) : null}
        {step === 'sandbox' && account ? <SandboxOnboarding account={account} onLeave={go} /> : null}
        {step === 'return' ? <ReturnNotice onDismiss={() => go(null)} /> : null}
        {step === 'refresh' ? <RefreshNotice /> : null}
        {step === null && connect.status !== 'active' ? <OnboardButton status={connect.status} /> : null}
      </CardContent>
    </Card>
  );
}
