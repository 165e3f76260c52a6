import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import InputAdornment from '@mui/material/InputAdornment';
import TextField from '@mui/material/TextField';
import { chargeStoredCardInputSchema, formatCents } from '@layerline/contracts';
import { useChargeStoredCard } from '../../../api/payments.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { firstErrorPerField } from '../../../components/field-errors.ts';
import { CHARGE_STATUS_LABELS } from './charge-format.ts';

type Field = 'orderId' | 'amount';

/**
 * The spec's chargeStoredCard for admins: charge a seller's stored card by hand for one of their
 * orders. Mounted once per opening (`key`), so each opening carries its own requestId: a double
 * click or a retry after a lost answer charges once, a second opening is a second charge.
 */
export function ChargeCardDialog({
  targetUserId,
  sellerName,
  initialOrderId,
  onClose,
}: {
  targetUserId: string;
  sellerName: string;
  initialOrderId: string;
  onClose(): void;
}) {
  const charge = useChargeStoredCard();
  const { showToast } = useToast();
  const [requestId] = useState(() => crypto.randomUUID());
  const [orderId, setOrderId] = useState(initialOrderId);
  const [amount, setAmount] = useState('');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});

  function submit() {
    const dollars = Number(amount.replace(/[$,\s]/g, ''));
    const isNumber = amount.trim() !== '' && Number.isFinite(dollars);
    const parsed = chargeStoredCardInputSchema.safeParse({
      orderId: orderId.trim(),
      amount: isNumber ? Math.round(dollars * 100) / 100 : 0,
      targetUserId,
      requestId,
    });
    if (!parsed.success || !isNumber) {
      const found = parsed.success ? {} : firstErrorPerField(parsed.error, ['orderId', 'amount'] as const);
      setErrors(isNumber ? found : { ...found, amount: 'Enter the amount in dollars, e.g. 12.50' });
      return;
    }
    setErrors({});
    charge.mutate(parsed.data, {
      onSuccess: (result) => {
        const words = `${formatCents(result.amountCents, result.currency)}: ${CHARGE_STATUS_LABELS[result.status].toLowerCase()}`;
        if (result.status === 'failed') showToast(`Charge of ${words}. ${result.failureReason ?? ''}`.trim(), 'error', 8000);
        else showToast(`Charged ${words}`);
        onClose();
      },
    });
  }

  return (
    <Dialog open onClose={charge.isPending ? undefined : onClose} maxWidth="xs" fullWidth aria-labelledby="charge-card-title">
      <DialogTitle id="charge-card-title">Charge {sellerName}&apos;s card</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          Charges the seller&apos;s stored card now, off-session, for one of their orders. It shows on their Billing page.
        </DialogContentText>
        <TextField
          label="Order id"
          value={orderId}
          onChange={(e) => setOrderId(e.target.value)}
          fullWidth
          margin="dense"
          error={Boolean(errors.orderId)}
          helperText={errors.orderId ?? 'The order’s id (from its page in All Orders)'}
          disabled={charge.isPending}
        />
        <TextField
          label="Amount"
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
          fullWidth
          margin="dense"
          autoFocus={Boolean(initialOrderId)}
          error={Boolean(errors.amount)}
          helperText={errors.amount ?? 'In dollars'}
          disabled={charge.isPending}
          slotProps={{
            htmlInput: { inputMode: 'decimal' },
            input: { startAdornment: <InputAdornment position="start">$</InputAdornment> },
          }}
        />
        {charge.isError ? (
          <Alert severity="error" sx={{ mt: 1 }}>
            {charge.error.message}
          </Alert>
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={charge.isPending}>
          Cancel
        </Button>
        <Button variant="contained" onClick={submit} disabled={charge.isPending}>
          {charge.isPending ? 'Charging…' : 'Charge card'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
