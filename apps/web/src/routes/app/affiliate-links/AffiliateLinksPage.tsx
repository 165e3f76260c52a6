import { useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import {
  affiliateCodeProblem,
  formatCents,
  type EarningState,
  type UserAffiliates,
} from '@layerline/contracts';
import { useAffiliateEarnings, useMyAffiliate, useUpdateAffiliateCode } from '../../../api/affiliates.ts';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { LoadingSpinner } from '../../../components/LoadingSpinner.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { ConnectPanel } from './ConnectPanel.tsx';

const dateOf = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/** The share link as a visitor would open it: absolute on this site when the server answered a path. */
const absolute = (link: string) => (link.startsWith('/') ? `${window.location.origin}${link}` : link);

const STATE_LABEL: Readonly<Record<EarningState, string>> = {
  pending: 'Pending',
  payable: 'Payable',
  paid: 'Paid',
};
const STATE_COLOR: Readonly<Record<EarningState, 'default' | 'info' | 'success'>> = {
  pending: 'default',
  payable: 'info',
  paid: 'success',
};

/** The code (edited in place, checked as it is typed) and the link to share. */
function CodeCard({ affiliate }: { affiliate: UserAffiliates }) {
  const [draft, setDraft] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const update = useUpdateAffiliateCode();
  const link = absolute(affiliate.shareLink);
  const problem = draft === null ? null : affiliateCodeProblem(draft.trim());

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (draft === null || problem) return;
    update.mutate(draft.trim(), { onSuccess: () => setDraft(null) });
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };

  return (
    <Card>
      <CardContent sx={{ display: 'grid', gap: 2 }}>
        <Typography variant="h6" component="h2">
          Your referral code
        </Typography>
        {draft === null ? (
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap' }}>
            <Typography
              variant="h5"
              component="p"
              data-testid="affiliate-code"
              sx={{ fontFamily: 'monospace' }}
            >
              {affiliate.code}
            </Typography>
            <Button
              size="small"
              onClick={() => {
                update.reset();
                setDraft(affiliate.code);
              }}
            >
              Change code
            </Button>
          </Box>
        ) : (
          <Box
            component="form"
            onSubmit={save}
            noValidate
            sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', flexWrap: 'wrap' }}
          >
            <TextField
              label="Referral code"
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
              error={Boolean(problem) || update.isError}
              helperText={
                problem ?? (update.isError ? update.error.message : '3–32 letters, digits and dashes')
              }
              size="small"
              autoFocus
              sx={{ minWidth: 260 }}
              slotProps={{ htmlInput: { 'aria-label': 'Referral code', maxLength: 40 } }}
            />
            <Button type="submit" variant="contained" disabled={Boolean(problem) || update.isPending}>
              Save
            </Button>
            <Button onClick={() => setDraft(null)} disabled={update.isPending}>
              Cancel
            </Button>
          </Box>
        )}
        <Box>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 0.5 }}>
            Share this link: anyone who signs up after opening it (on any page of the site) is credited to
            you. Changing your code stops links with the old code from counting.
          </Typography>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            <Box
              component="code"
              data-testid="share-link"
              sx={{
                flex: 1,
                minWidth: 0,
                overflowWrap: 'anywhere',
                fontFamily: 'monospace',
                p: 1,
                borderRadius: 1,
                bgcolor: 'action.hover',
              }}
            >
              {link}
            </Box>
            <Tooltip title={copied ? 'Copied' : 'Copy link'}>
              <IconButton aria-label="Copy share link" onClick={() => void copy()}>
                <ContentCopyIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          </Box>
        </Box>
      </CardContent>
    </Card>
  );
}

function Figure({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h5" component="p" data-testid={testId}>
          {value}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {label}
        </Typography>
      </CardContent>
    </Card>
  );
}

function SignUps({ affiliate }: { affiliate: UserAffiliates }) {
  const money = (cents: number) => formatCents(cents, affiliate.totals.currency);
  return (
    <Card>
      <CardContent>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          Sign-ups
        </Typography>
        {affiliate.signUps.length === 0 ? (
          <Typography color="text.secondary">No one has signed up with your link yet.</Typography>
        ) : (
          <TableContainer>
            <Table size="small" aria-label="Sign-ups">
              <TableHead>
                <TableRow>
                  <TableCell>Seller</TableCell>
                  <TableCell>Joined</TableCell>
                  <TableCell>Earns until</TableCell>
                  <TableCell align="right">Orders</TableCell>
                  <TableCell align="right">Earned</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {affiliate.signUps.map((seller) => (
                  <TableRow key={`${seller.joinedAt}-${seller.name}`}>
                    <TableCell>{seller.name}</TableCell>
                    <TableCell>{dateOf(seller.joinedAt)}</TableCell>
                    <TableCell>{dateOf(seller.endsAt)}</TableCell>
                    <TableCell align="right">{seller.ordersCount}</TableCell>
                    <TableCell align="right">{money(seller.earnedCents)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
        {affiliate.signUpsCount > affiliate.signUps.length ? (
          <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
            The {affiliate.signUps.length} most recent of {affiliate.signUpsCount}.
          </Typography>
        ) : null}
      </CardContent>
    </Card>
  );
}

/** getUserAffiliateEarnings: the ledger, newest first, paged. */
function Ledger({ affiliateId }: { affiliateId: string }) {
  const pages = useCursorPages(affiliateId);
  const earnings = useAffiliateEarnings(affiliateId, pages.cursor);
  return (
    <Card>
      <CardContent>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          Earnings ledger
        </Typography>
        {earnings.isError ? (
          <Alert severity="error">Failed to getUserAffiliateEarnings: {earnings.error.message}</Alert>
        ) : null}
        {earnings.data && earnings.data.items.length === 0 ? (
          <Typography color="text.secondary">
            Nothing yet: you earn when a seller you referred has an order charged.
          </Typography>
        ) : null}
        {earnings.data && earnings.data.items.length > 0 ? (
          <TableContainer>
            <Table size="small" aria-label="Earnings ledger">
              <TableHead>
                <TableRow>
                  <TableCell>Date</TableCell>
                  <TableCell>Seller</TableCell>
                  <TableCell>Order</TableCell>
                  <TableCell>Entry</TableCell>
                  <TableCell align="right">Amount</TableCell>
                  <TableCell>State</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {earnings.data.items.map((entry) => (
                  <TableRow key={entry.id}>
                    <TableCell>{dateOf(entry.createdAt)}</TableCell>
                    <TableCell>{entry.referredSeller}</TableCell>
                    <TableCell>{entry.orderNumber ?? '—'}</TableCell>
                    <TableCell>{entry.kind === 'earning' ? 'Order charged' : 'Refund'}</TableCell>
                    <TableCell align="right" sx={{ color: entry.amountCents < 0 ? 'error.main' : undefined }}>
                      {formatCents(entry.amountCents, entry.currency)}
                    </TableCell>
                    <TableCell>
                      <Tooltip
                        title={
                          entry.state === 'paid'
                            ? `Paid ${entry.paidAt ? dateOf(entry.paidAt) : ''}`
                            : entry.payableAt
                              ? `Payable from ${dateOf(entry.payableAt)}`
                              : 'Payable once the order is delivered and the holding period has passed'
                        }
                      >
                        <Chip
                          size="small"
                          label={STATE_LABEL[entry.state]}
                          color={STATE_COLOR[entry.state]}
                        />
                      </Tooltip>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        ) : null}
        <CursorPager pages={pages} nextCursor={earnings.data?.nextCursor} label="Pages of earnings" />
      </CardContent>
    </Card>
  );
}

/** /affiliate-links (beta testers): code, share link, sign-ups, earnings and payouts (docs/affiliates.md). */
export default function AffiliateLinksPage() {
  const affiliate = useMyAffiliate();
  if (affiliate.isPending) return <LoadingSpinner label="Loading your affiliate links" />;
  if (affiliate.isError)
    return <Alert severity="error">Failed to getUserAffiliates: {affiliate.error.message}</Alert>;
  const data = affiliate.data;
  const money = (cents: number) => formatCents(cents, data.totals.currency);
  return (
    <Box sx={{ display: 'grid', gap: 3 }}>
      <PageHeading
        title="Affiliate Links"
        subtitle={
          <>
            (beta) Earn {data.sharePercent}% of the fulfilment revenue of every seller you bring, for{' '}
            {data.periodMonths} months after they sign up. Earnings become payable {data.holdDays} days after
            the order is delivered.
          </>
        }
      />
      <ConnectPanel connect={data.connect} />
      <CodeCard affiliate={data} />
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr 1fr', md: 'repeat(5, 1fr)' } }}>
        <Figure label="Sign-ups" value={String(data.signUpsCount)} testId="figure-signups" />
        <Figure label="Orders" value={String(data.ordersCount)} testId="figure-orders" />
        <Figure label="Pending" value={money(data.totals.pendingCents)} testId="figure-pending" />
        <Figure label="Payable" value={money(data.totals.payableCents)} testId="figure-payable" />
        <Figure label="Paid" value={money(data.totals.paidCents)} testId="figure-paid" />
      </Box>
      <SignUps affiliate={data} />
      <Ledger affiliateId={data.affiliateId} />
    </Box>
  );
}
