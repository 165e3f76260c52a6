import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import type { Order } from '@layerline/contracts';
import { useCharges } from '../../../api/payments.ts';
import { CHARGE_STATUS_LABELS, chargeMoney, chargeStatusColor } from '../billing/charge-format.ts';

/**
 * What the order cost the seller: its charges (newest first; a retry after a new card is a second
 * attempt; an adjustment after the exact quote with its reason), refunds with theirs, and the way to
 * authenticate one the bank holds. Admins get the way to the
 * seller's billing, where they can charge or refund by hand.
 */
export function OrderCharge({ order, admin }: { order: Order; admin: boolean }) {
  const charges = useCharges({ orderId: order.id, limit: 5 });
  const items = charges.data?.items ?? [];
  const billingHref = admin
    ? `/billing?${new URLSearchParams({ targetUserId: order.ownerId, orderId: order.id }).toString()}`
    : `/billing?${new URLSearchParams({ orderId: order.id }).toString()}`;
  if (items.length === 0 && !admin) return null;
  return (
    <Box sx={{ mb: 2 }} data-testid="order-charge">
      <Typography variant="overline">Payment</Typography>
      {items.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          Not charged.
        </Typography>
      ) : null}
      {items.map((charge) => (
        <Box key={charge.id} sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', py: 0.25 }}>
          <Typography variant="body2" sx={{ fontWeight: 600 }}>
            {chargeMoney(charge, charge.amountCents)}
          </Typography>
          <Chip size="small" label={CHARGE_STATUS_LABELS[charge.status]} color={chargeStatusColor(charge.status)} />
          {charge.kind === 'adjustment' ? <Chip size="small" variant="outlined" label="Price adjustment" /> : null}
          {charge.failureReason ? (
            <Typography variant="body2" color={charge.status === 'failed' ? 'error' : 'text.secondary'}>
              {charge.failureReason}
            </Typography>
          ) : null}
          {charge.refunds
            .filter((refund) => refund.status === 'succeeded')
            .map((refund) => (
              <Typography key={refund.id} variant="body2" color="text.secondary" sx={{ flexBasis: '100%' }}>
                {chargeMoney(charge, refund.amountCents)} refunded{refund.reason ? `: ${refund.reason}` : ''}
              </Typography>
            ))}
          {charge.status === 'requires_action' && !admin ? (
            <Button size="small" variant="contained" component={RouterLink} to={`/billing/authenticate/${charge.id}`}>
              Authenticate
            </Button>
          ) : null}
        </Box>
      ))}
      <Button size="small" component={RouterLink} to={billingHref} sx={{ px: 0.5, mt: 0.5 }}>
        {admin ? 'Seller’s billing: charge or refund' : 'See it on your Billing page'}
      </Button>
    </Box>
  );
}
