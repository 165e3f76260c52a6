import { useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import Link from '@mui/material/Link';
import Skeleton from '@mui/material/Skeleton';
import Switch from '@mui/material/Switch';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { formatCents, MIN_TOP_UP_CENTS, type WalletDto } from '@layerline/contracts';
import { useAdjustWallet, useReceipts, useSetAutoRecharge, useTopUp, useWallet, useWalletEntries, walletPath } from '../../../api/wallet.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { TestModeChip } from './BillingSummary.tsx';

const PAGE_SIZE = 10;
const receiptLabel = (number: number) => `R-${String(number).padStart(6, '0')}`;
const receiptHref = (number: number) => `/api/wallet/receipts/${number}/pdf`;
const day = (iso: string) => new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/** Dollars typed by a person ("12", "12.5", "$12.50") to whole cents; null when it is not an amount. */
function centsOf(text: string): number | null {
  const clean = text.replace(/[$,\s]/g, '');
  if (!/^-?\d+(\.\d{1,2})?$/.test(clean)) return null;
  return Math.round(Number(clean) * 100);
}

/**
 * Billing's wallet (docs/wallet.md): the prepaid balance orders are paid from first, top-ups by card,
 * auto-recharge, the balance's history and every receipt with its PDF, the monthly statement and the
 * CSV exports. An admin looking at a seller adjusts the balance instead of topping it up.
 */
export function WalletPanel({ targetUserId, own, isAdmin }: { targetUserId: string | undefined; own: boolean; isAdmin: boolean }) {
  const wallet = useWallet(targetUserId);
  const [dialog, setDialog] = useState<{ kind: 'top-up' | 'adjust'; key: number } | null>(null);
  const [month, setMonth] = useState(() => new Date().toISOString().slice(0, 7));
  if (wallet.isPending) return <Skeleton variant="rounded" height={160} sx={{ mb: 2 }} />;
  if (wallet.isError) return <Alert severity="error" sx={{ mb: 2 }}>{wallet.error.message}</Alert>;
  const data = wallet.data;
  return (
    <Card variant="outlined" sx={{ mb: 2 }} data-testid="wallet">
      <CardContent sx={{ display: 'grid', gap: 2 }}>
        <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 2, flexWrap: 'wrap' }}>
          <Box>
            <Typography variant="overline" color="text.secondary">
              Prepaid balance
            </Typography>
            <Typography variant="h4" component="p" data-testid="wallet-balance">
              {formatCents(data.balanceCents, data.currency)}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              Orders are paid from the balance when it covers them, else charged to the card.
            </Typography>
          </Box>
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
            <TestModeChip testMode={data.testMode} />
            {own ? (
              <Button variant="contained" disabled={!data.hasCard} onClick={() => setDialog({ kind: 'top-up', key: Date.now() })}>
                Top up
              </Button>
            ) : null}
            {isAdmin && !own ? (
              <Button variant="outlined" onClick={() => setDialog({ kind: 'adjust', key: Date.now() })}>
                Adjust balance
              </Button>
            ) : null}
          </Box>
        </Box>
        {own && !data.hasCard ? <Alert severity="info">Add a card in Account settings to top up the balance.</Alert> : null}
        <AutoRechargeForm key={data.ownerId} wallet={data} targetUserId={targetUserId} />
        <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
          <TextField
            label="Statement month"
            type="month"
            size="small"
            value={month}
            onChange={(event) => setMonth(event.target.value)}
            slotProps={{ inputLabel: { shrink: true } }}
          />
          <Button
            variant="outlined"
            href={walletPath(`/api/wallet/statements/${month}/pdf`, { targetUserId })}
            target="_blank"
            disabled={!/^\d{4}-\d{2}$/.test(month)}
          >
            Statement PDF
          </Button>
          <Button href={walletPath('/api/wallet/entries.csv', { targetUserId })} download>
            Balance history CSV
          </Button>
          <Button href={walletPath('/api/wallet/receipts.csv', { targetUserId })} download>
            Receipts CSV
          </Button>
        </Box>
        <LedgerTable targetUserId={targetUserId} />
        <ReceiptsTable targetUserId={targetUserId} />
      </CardContent>
      {dialog?.kind === 'top-up' ? <TopUpDialog key={dialog.key} onClose={() => setDialog(null)} /> : null}
      {dialog?.kind === 'adjust' && targetUserId ? (
        <AdjustDialog key={dialog.key} targetUserId={targetUserId} onClose={() => setDialog(null)} />
      ) : null}
    </Card>
  );
}

function AutoRechargeForm({ wallet, targetUserId }: { wallet: WalletDto; targetUserId: string | undefined }) {
  const save = useSetAutoRecharge();
  const { showToast } = useToast();
  const [enabled, setEnabled] = useState(wallet.autoRecharge);
  const [threshold, setThreshold] = useState(((wallet.rechargeThresholdCents || 1000) / 100).toFixed(2));
  const [amount, setAmount] = useState(((wallet.rechargeAmountCents || 5000) / 100).toFixed(2));
  const thresholdCents = centsOf(threshold);
  const amountCents = centsOf(amount);
  const amountError = amountCents === null || amountCents < MIN_TOP_UP_CENTS ? 'At least $5.00' : '';
  const thresholdError = thresholdCents === null || thresholdCents < 0 ? 'An amount, e.g. 10.00' : '';

  function submit(event: FormEvent) {
    event.preventDefault();
    if (amountError || thresholdError) return;
    save.mutate(
      { enabled, thresholdCents: thresholdCents!, amountCents: amountCents!, ...(targetUserId ? { targetUserId } : {}) },
      { onSuccess: () => showToast(enabled ? 'Auto-recharge is on' : 'Auto-recharge is off') },
    );
  }

  return (
    <Box component="form" onSubmit={submit} sx={{ display: 'flex', gap: 1.5, alignItems: 'flex-start', flexWrap: 'wrap' }} aria-label="Auto-recharge">
      <FormControlLabel control={<Switch checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />} label="Auto-recharge" />
      <TextField
        label="When the balance falls below ($)"
        size="small"
        value={threshold}
        onChange={(event) => setThreshold(event.target.value)}
        error={Boolean(thresholdError)}
        helperText={thresholdError || ' '}
        disabled={!enabled}
      />
      <TextField
        label="Top up by ($)"
        size="small"
        value={amount}
        onChange={(event) => setAmount(event.target.value)}
        error={Boolean(amountError)}
        helperText={amountError || ' '}
        disabled={!enabled}
      />
      <Button type="submit" variant="outlined" disabled={save.isPending}>
        {save.isPending ? 'Saving…' : 'Save'}
      </Button>
      {save.isError ? <Alert severity="error" sx={{ width: '100%' }}>{save.error.message}</Alert> : null}
    </Box>
  );
}

function LedgerTable({ targetUserId }: { targetUserId: string | undefined }) {
  const pages = useCursorPages(targetUserId ?? 'me');
  const entries = useWalletEntries(targetUserId, pages.cursor, PAGE_SIZE);
  const items = entries.data?.items ?? [];
  return (
    <Box>
      <Typography variant="subtitle1" component="h2">
        Balance history
      </Typography>
      {entries.isError ? <Alert severity="error">{entries.error.message}</Alert> : null}
      {items.length === 0 && !entries.isPending ? (
        <Typography variant="body2" color="text.secondary" data-testid="no-wallet-entries">
          Nothing yet: top up to pay orders from the balance.
        </Typography>
      ) : (
        <Table size="small" aria-label="Balance history">
          <TableHead>
            <TableRow>
              <TableCell>Date</TableCell>
              <TableCell>What</TableCell>
              <TableCell align="right">Amount</TableCell>
              <TableCell align="right">Balance</TableCell>
              <TableCell>Receipt</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {items.map((entry) => (
              <TableRow key={entry.id} data-testid="wallet-entry">
                <TableCell>{day(entry.createdAt)}</TableCell>
                <TableCell>{entry.description}</TableCell>
                <TableCell align="right">{formatCents(entry.amountCents)}</TableCell>
                <TableCell align="right">{formatCents(entry.balanceAfterCents)}</TableCell>
                <TableCell>
                  {entry.receiptNumber ? (
                    <Link href={receiptHref(entry.receiptNumber)} target="_blank" rel="noopener">
                      {receiptLabel(entry.receiptNumber)}
                    </Link>
                  ) : null}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      <CursorPager pages={pages} nextCursor={entries.data?.nextCursor} label="Pages of balance history" />
    </Box>
  );
}

const KIND_LABEL = { charge: 'Charge', top_up: 'Top-up', refund: 'Refund', adjustment: 'Adjustment' } as const;

function ReceiptsTable({ targetUserId }: { targetUserId: string | undefined }) {
  const pages = useCursorPages(targetUserId ?? 'me');
  const receipts = useReceipts(targetUserId, pages.cursor, PAGE_SIZE);
  const items = receipts.data?.items ?? [];
  return (
    <Box>
      <Typography variant="subtitle1" component="h2">
        Receipts
      </Typography>
      {receipts.isError ? <Alert severity="error">{receipts.error.message}</Alert> : null}
      {items.length === 0 && !receipts.isPending ? (
        <Typography variant="body2" color="text.secondary">
          Every charge, top-up, refund and adjustment gets a numbered receipt here.
        </Typography>
      ) : (
        <Table size="small" aria-label="Receipts">
          <TableHead>
            <TableRow>
              <TableCell>Receipt</TableCell>
              <TableCell>Date</TableCell>
              <TableCell>Kind</TableCell>
              <TableCell>What</TableCell>
              <TableCell>Paid with</TableCell>
              <TableCell align="right">Amount</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {items.map((receipt) => (
              <TableRow key={receipt.number} data-testid="receipt">
                <TableCell>
                  <Link href={receiptHref(receipt.number)} target="_blank" rel="noopener">
                    {receiptLabel(receipt.number)}
                  </Link>
                </TableCell>
                <TableCell>{day(receipt.issuedAt)}</TableCell>
                <TableCell>{KIND_LABEL[receipt.kind]}</TableCell>
                <TableCell>{receipt.description}</TableCell>
                <TableCell>{receipt.paidWith === 'wallet' ? 'Balance' : 'Card'}</TableCell>
                <TableCell align="right">{formatCents(receipt.amountCents, receipt.currency)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      <CursorPager pages={pages} nextCursor={receipts.data?.nextCursor} label="Pages of receipts" />
    </Box>
  );
}

/** A top-up by the card on file. Mounted per opening: one requestId, so a double click tops up once. */
function TopUpDialog({ onClose }: { onClose(): void }) {
  const topUp = useTopUp();
  const { showToast } = useToast();
  const [amount, setAmount] = useState('50.00');
  const [requestId] = useState(() => crypto.randomUUID());
  const cents = centsOf(amount);
  const error = cents === null || cents < MIN_TOP_UP_CENTS ? 'At least $5.00' : '';

  function submit(event: FormEvent) {
    event.preventDefault();
    if (error) return;
    topUp.mutate(
      { amountCents: cents!, requestId },
      {
        onSuccess: (made) => {
          if (made.status === 'succeeded') {
            showToast(`Added ${formatCents(made.amountCents)} to your balance`);
            onClose();
          }
        },
      },
    );
  }

  const failed = topUp.data?.status === 'failed' ? topUp.data.failureReason : null;
  return (
    <Dialog open onClose={onClose} component="form" onSubmit={submit} aria-labelledby="top-up-title">
      <DialogTitle id="top-up-title">Top up the balance</DialogTitle>
      <DialogContent>
        <Typography variant="body2" color="text.secondary" gutterBottom>
          Charged now to your card on file; orders are then paid from the balance.
        </Typography>
        <TextField
          autoFocus
          label="Amount ($)"
          value={amount}
          onChange={(event) => setAmount(event.target.value)}
          error={Boolean(error)}
          helperText={error || ' '}
          fullWidth
          margin="normal"
          disabled={topUp.isPending || Boolean(failed)}
        />
        {failed ? <Alert severity="error">The card was not charged: {failed}</Alert> : null}
        {topUp.isError ? <Alert severity="error">{topUp.error.message}</Alert> : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{failed ? 'Close' : 'Cancel'}</Button>
        <Button type="submit" variant="contained" disabled={topUp.isPending || Boolean(failed)}>
          {topUp.isPending ? 'Charging…' : 'Top up'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** Admins: a credit (positive) or debit (negative) with the reason printed on its receipt. */
function AdjustDialog({ targetUserId, onClose }: { targetUserId: string; onClose(): void }) {
  const adjust = useAdjustWallet();
  const { showToast } = useToast();
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [requestId] = useState(() => crypto.randomUUID());
  const cents = centsOf(amount);
  const amountError = amount !== '' && (cents === null || cents === 0) ? 'An amount other than 0, e.g. 10.00 or -5.00' : '';

  function submit(event: FormEvent) {
    event.preventDefault();
    if (cents === null || cents === 0 || reason.trim().length < 3) return;
    adjust.mutate(
      { targetUserId, amountCents: cents, reason: reason.trim(), requestId },
      {
        onSuccess: () => {
          showToast(`Balance adjusted by ${formatCents(cents)}`);
          onClose();
        },
      },
    );
  }

  return (
    <Dialog open onClose={onClose} component="form" onSubmit={submit} aria-labelledby="adjust-title">
      <DialogTitle id="adjust-title">Adjust the balance</DialogTitle>
      <DialogContent>
        <TextField
          autoFocus
          label="Amount ($, negative to debit)"
          value={amount}
          onChange={(event) => setAmount(event.target.value)}
          error={Boolean(amountError)}
          helperText={amountError || ' '}
          fullWidth
          margin="normal"
        />
        <TextField
          label="Reason (on the seller’s receipt)"
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          fullWidth
          margin="normal"
          slotProps={{ htmlInput: { maxLength: 300 } }}
        />
        {adjust.isError ? <Alert severity="error">{adjust.error.message}</Alert> : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" variant="contained" disabled={adjust.isPending || cents === null || cents === 0 || reason.trim().length < 3}>
          {adjust.isPending ? 'Saving…' : 'Adjust'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
