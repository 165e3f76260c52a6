import { useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  affiliateCodeProblem,
  formatCents,
  type AdminAffiliate,
  type PayoutStatus,
} from '@layerline/contracts';
import {
  useAdminAffiliates,
  useAdminChangeCode,
  useApprovePayoutRun,
  usePayoutPeriods,
  usePayoutRun,
  useProposePayoutRun,
  useSetPayoutsHeld,
} from '../../../api/affiliates.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { CONNECT_LABELS, connectColor } from '../../app/affiliate-links/ConnectPanel.tsx';

const usd = (cents: number) => formatCents(cents, 'USD');

const PAYOUT_COLOR: Readonly<Record<PayoutStatus, 'default' | 'info' | 'success' | 'error' | 'warning'>> = {
  proposed: 'info',
  approved: 'warning',
  paid: 'success',
  failed: 'error',
  held: 'default',
};

function ChangeCodeDialog({ affiliate, onClose }: { affiliate: AdminAffiliate; onClose(): void }) {
  const [code, setCode] = useState(affiliate.code);
  const change = useAdminChangeCode();
  const { showToast } = useToast();
  const problem = affiliateCodeProblem(code.trim());
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (problem) return;
    change.mutate(
      { userId: affiliate.userId, affiliateCode: code.trim() },
      {
        onSuccess: () => {
          showToast(`${affiliate.name}'s code is now ${code.trim()}`);
          onClose();
        },
      },
    );
  };
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="xs">
      <Box component="form" onSubmit={submit} noValidate>
        <DialogTitle>Change {affiliate.name}&apos;s code</DialogTitle>
        <DialogContent>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            Links shared with the old code stop counting; sellers already referred stay referred.
          </Typography>
          <TextField
            label="Referral code"
            value={code}
            onChange={(event) => setCode(event.target.value)}
            error={Boolean(problem) || change.isError}
            helperText={problem ?? (change.isError ? change.error.message : ' ')}
            fullWidth
            autoFocus
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="contained" disabled={Boolean(problem) || change.isPending}>
            Save
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}

function AffiliatesTable() {
  const pages = useCursorPages('all');
  const list = useAdminAffiliates(pages.cursor);
  const hold = useSetPayoutsHeld();
  const { showToast } = useToast();
  const [editing, setEditing] = useState<AdminAffiliate | null>(null);

  const toggleHold = (affiliate: AdminAffiliate) =>
    hold.mutate(
      { userId: affiliate.userId, held: !affiliate.payoutsHeld },
      {
        onSuccess: () =>
          showToast(
            affiliate.payoutsHeld
              ? `Payouts to ${affiliate.name} released`
              : `Payouts to ${affiliate.name} held`,
          ),
        onError: (error) => showToast(error.message, 'error'),
      },
    );

  return (
    <Card>
      <CardContent>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          Affiliates
        </Typography>
        {list.isError ? <Alert severity="error">{list.error.message}</Alert> : null}
        {list.data && list.data.items.length === 0 ? (
          <Typography color="text.secondary">
            No affiliates yet: a beta tester becomes one when they open Affiliate Links.
          </Typography>
        ) : null}
        {list.data && list.data.items.length > 0 ? (
          <TableContainer>
            <Table size="small" aria-label="Affiliates">
              <TableHead>
                <TableRow>
                  <TableCell>Code</TableCell>
                  <TableCell>Affiliate</TableCell>
                  <TableCell>Payouts account</TableCell>
                  <TableCell align="right">Sign-ups</TableCell>
                  <TableCell align="right">Orders</TableCell>
                  <TableCell align="right">Pending</TableCell>
                  <TableCell align="right">Payable</TableCell>
                  <TableCell align="right">Paid</TableCell>
                  <TableCell align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {list.data.items.map((affiliate) => (
                  <TableRow key={affiliate.userId} data-testid={`affiliate-row-${affiliate.code}`}>
                    <TableCell sx={{ fontFamily: 'monospace', whiteSpace: 'nowrap' }}>
                      {affiliate.code}
                    </TableCell>
                    <TableCell>
                      {affiliate.name}
                      <Typography variant="body2" color="text.secondary">
                        {affiliate.email}
                      </Typography>
                    </TableCell>
                    <TableCell>
                      <Box sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap' }}>
                        <Chip
                          size="small"
                          label={CONNECT_LABELS[affiliate.connectStatus]}
                          color={connectColor(affiliate.connectStatus)}
                        />
                        {affiliate.payoutsHeld ? (
                          <Chip size="small" label="Held" color="error" variant="outlined" />
                        ) : null}
                      </Box>
                    </TableCell>
                    <TableCell align="right">{affiliate.signUpsCount}</TableCell>
                    <TableCell align="right">{affiliate.ordersCount}</TableCell>
                    <TableCell align="right">{usd(affiliate.totals.pendingCents)}</TableCell>
                    <TableCell align="right">{usd(affiliate.totals.payableCents)}</TableCell>
                    <TableCell align="right">{usd(affiliate.totals.paidCents)}</TableCell>
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <Button size="small" onClick={() => setEditing(affiliate)}>
                        Change code
                      </Button>
                      <Button
                        size="small"
                        color={affiliate.payoutsHeld ? 'primary' : 'warning'}
                        disabled={hold.isPending}
                        onClick={() => toggleHold(affiliate)}
                      >
                        {affiliate.payoutsHeld ? 'Release payouts' : 'Hold payouts'}
                      </Button>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        ) : null}
        <CursorPager pages={pages} nextCursor={list.data?.nextCursor} label="Pages of affiliates" />
        {editing ? <ChangeCodeDialog affiliate={editing} onClose={() => setEditing(null)} /> : null}
      </CardContent>
    </Card>
  );
}

/** The monthly payout run: propose the month's payable balances, then approve (one Stripe transfer each). */
function PayoutRunCard() {
  const [period, setPeriod] = useState(() => new Date().toISOString().slice(0, 7));
  const run = usePayoutRun(period);
  const periods = usePayoutPeriods();
  const propose = useProposePayoutRun();
  const approve = useApprovePayoutRun();
  const [confirming, setConfirming] = useState(false);
  const { showToast } = useToast();
  const payouts = run.data?.payouts ?? [];
  const toPay = payouts.filter(
    (payout) => payout.status === 'proposed' || payout.status === 'failed' || payout.status === 'approved',
  );
  const skipped = propose.data?.period === period ? propose.data.skipped : [];

  return (
    <Card>
      <CardContent sx={{ display: 'grid', gap: 2 }}>
        <Box>
          <Typography variant="h6" component="h2">
            Monthly payout run
          </Typography>
          <Typography variant="body2" color="text.secondary">
            Proposing gathers each affiliate&apos;s payable earnings (delivered + the holding period) not yet
            paid. Approving transfers each payout once to the affiliate&apos;s Stripe account; approving again
            never pays twice.
          </Typography>
        </Box>
        <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
          <TextField
            label="Month"
            type="month"
            size="small"
            value={period}
            onChange={(event) => setPeriod(event.target.value)}
            sx={{ width: 200 }}
            slotProps={{ inputLabel: { shrink: true } }}
          />
          <Button
            variant="outlined"
            disabled={propose.isPending}
            onClick={() => propose.mutate(period, { onError: (error) => showToast(error.message, 'error') })}
          >
            Propose payouts
          </Button>
          <Button
            variant="contained"
            disabled={toPay.length === 0 || approve.isPending}
            onClick={() => setConfirming(true)}
          >
            Approve and pay ({toPay.length})
          </Button>
          {periods.data && periods.data.periods.length > 0 ? (
            <Typography variant="body2" color="text.secondary">
              Earlier runs:{' '}
              {periods.data.periods.map((p) => (
                <Button key={p} size="small" onClick={() => setPeriod(p)}>
                  {p}
                </Button>
              ))}
            </Typography>
          ) : null}
        </Box>
        {run.isError ? <Alert severity="error">{run.error.message}</Alert> : null}
        {payouts.length === 0 && run.data ? (
          <Typography color="text.secondary" data-testid="payout-run-empty">
            No payouts for {period} yet.
          </Typography>
        ) : null}
        {payouts.length > 0 ? (
          <TableContainer>
            <Table size="small" aria-label="Payouts">
              <TableHead>
                <TableRow>
                  <TableCell>Affiliate</TableCell>
                  <TableCell align="right">Entries</TableCell>
                  <TableCell align="right">Amount</TableCell>
                  <TableCell>Status</TableCell>
                  <TableCell>Transfer</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {payouts.map((payout) => (
                  <TableRow key={payout.id}>
                    <TableCell>
                      {payout.name}{' '}
                      <Box component="span" sx={{ fontFamily: 'monospace', color: 'text.secondary' }}>
                        ({payout.code})
                      </Box>
                    </TableCell>
                    <TableCell align="right">{payout.entriesCount}</TableCell>
                    <TableCell align="right">{formatCents(payout.amountCents, payout.currency)}</TableCell>
                    <TableCell>
                      <Chip size="small" label={payout.status} color={PAYOUT_COLOR[payout.status]} />
                      {payout.error ? (
                        <Typography variant="body2" color="error">
                          {payout.error}
                        </Typography>
                      ) : null}
                    </TableCell>
                    <TableCell sx={{ fontFamily: 'monospace' }}>{payout.transferId ?? '—'}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        ) : null}
        {skipped.length > 0 ? (
          <Alert severity="info">
            Left out of this run:
            <Box component="ul" sx={{ m: 0, pl: 2 }}>
              {skipped.map((skip) => (
                <li key={skip.affiliateId}>
                  {skip.code} ({usd(skip.amountCents)}): {skip.reason}
                </li>
              ))}
            </Box>
          </Alert>
        ) : null}
        <ConfirmDialog
          open={confirming}
          title={`Pay ${toPay.length} affiliate${toPay.length === 1 ? '' : 's'} for ${period}?`}
          confirmLabel="Approve and pay"
          busy={approve.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() =>
            approve.mutate(
              { period },
              {
                onSuccess: (result) => {
                  const paid = result.payouts.filter((payout) => payout.status === 'paid').length;
                  showToast(`${paid} of ${result.payouts.length} payouts paid`);
                },
                onError: (error) => showToast(error.message, 'error'),
                onSettled: () => setConfirming(false),
              },
            )
          }
        >
          {usd(toPay.reduce((sum, payout) => sum + payout.amountCents, 0))} in all is transferred to their
          Stripe accounts, once each.
        </ConfirmDialog>
      </CardContent>
    </Card>
  );
}

/** /affiliates (admins): every affiliate with totals, codes, holds and the monthly payout run (docs/affiliates.md). */
export default function AffiliatesPage() {
  return (
    <Box sx={{ display: 'grid', gap: 3 }}>
      <PageHeading
        title="Affiliates"
        subtitle="Referral codes, the sellers they brought, what they earned, and their payouts."
      />
      <AffiliatesTable />
      <PayoutRunCard />
    </Box>
  );
}
