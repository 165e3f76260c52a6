import { useState } from 'react';
import Alert from '@mui/material/Alert';
import TextField from '@mui/material/TextField';
import type { ChargeDto } from '@layerline/contracts';
import { useRefundCharge } from '../../../api/payments.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { chargeMoney, refundableCents } from './charge-format.ts';

/** Admins: refund what is left of a paid charge, with the reason the seller will read. Mounted per opening. */
export function RefundChargeDialog({ charge, onClose }: { charge: ChargeDto; onClose(): void }) {
  const refund = useRefundCharge();
  const { showToast } = useToast();
  const [reason, setReason] = useState('');
  const [requestId] = useState(() => crypto.randomUUID());
  const amount = chargeMoney(charge, refundableCents(charge));

  function confirm() {
    refund.mutate(
      { chargeId: charge.id, reason: reason.trim(), requestId },
      {
        onSuccess: () => {
          showToast(`Refunded ${amount} to ${charge.sellerName}`);
          onClose();
        },
      },
    );
  }

  return (
    <ConfirmDialog
      open
      title={`Refund ${amount}?`}
      confirmLabel={refund.isPending ? 'Refunding…' : 'Refund'}
      busy={refund.isPending}
      onConfirm={confirm}
      onCancel={onClose}
    >
      {amount} goes back to {charge.sellerName}&apos;s card
      {charge.orderNumber ? ` for order ${charge.orderNumber}` : ''}. This cannot be undone.
      <TextField
        label="Reason (the seller sees it)"
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        fullWidth
        margin="normal"
        slotProps={{ htmlInput: { maxLength: 500 } }}
        disabled={refund.isPending}
      />
      {refund.isError ? <Alert severity="error">{refund.error.message}</Alert> : null}
    </ConfirmDialog>
  );
}
