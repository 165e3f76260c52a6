import { Fragment, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Collapse from '@mui/material/Collapse';
import IconButton from '@mui/material/IconButton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import KeyboardArrowDownIcon from '@mui/icons-material/KeyboardArrowDown';
import KeyboardArrowUpIcon from '@mui/icons-material/KeyboardArrowUp';
import type { ChargeDto } from '@layerline/contracts';
import { dateTime } from '../orders/order-format.ts';
import { CHARGE_STATUS_LABELS, chargeMoney, chargeStatusColor, refundableCents } from './charge-format.ts';

export interface ChargesTableProps {
  charges: ChargeDto[];
  /** Admins: the seller column when the list holds several sellers' charges. */
  showSeller: boolean;
  /** Where an order number links to (the seller's orders page, or the admins'). */
  orderHref(orderId: string): string;
  /** Whether the viewer may authenticate this charge (only its seller can). */
  canAuthenticate(charge: ChargeDto): boolean;
  /** Admins: refund a paid charge (absent: no refund buttons). */
  onRefund?: (charge: ChargeDto) => void;
}

/** Charges newest first, each with its breakdown on demand and its refunds right under it. */
export function ChargesTable({ charges, showSeller, orderHref, canAuthenticate, onRefund }: ChargesTableProps) {
  const columns = 6 + (showSeller ? 1 : 0);
  return (
    <TableContainer>
      {/* Narrow screens scroll the table sideways rather than squeezing the amounts out of sight. */}
      <Table size="small" aria-label="Charges" sx={{ minWidth: 640 }}>
        <TableHead>
          <TableRow>
            <TableCell padding="checkbox" />
            <TableCell>Date</TableCell>
            {showSeller ? <TableCell>Seller</TableCell> : null}
            <TableCell>Order</TableCell>
            <TableCell align="right">Amount</TableCell>
            <TableCell>Status</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {charges.map((charge) => (
            <ChargeRows
              key={charge.id}
              charge={charge}
              columns={columns}
              showSeller={showSeller}
              orderHref={orderHref}
              canAuthenticate={canAuthenticate(charge)}
              onRefund={onRefund}
            />
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

function ChargeRows({
  charge,
  columns,
  showSeller,
  orderHref,
  canAuthenticate,
  onRefund,
}: Omit<ChargesTableProps, 'charges' | 'canAuthenticate'> & { charge: ChargeDto; columns: number; canAuthenticate: boolean }) {
  const [open, setOpen] = useState(false);
  const money = (cents: number) => chargeMoney(charge, cents);
  const breakdown = charge.breakdown;
  const hasRefunds = charge.refunds.length > 0;
  return (
    <Fragment>
      <TableRow data-testid="charge-row" sx={{ '& > td': { borderBottom: open || hasRefunds ? 'none' : undefined } }}>
        <TableCell padding="checkbox">
          <IconButton
            size="small"
            aria-label={open ? 'Hide the details' : 'Show the details'}
            aria-expanded={open}
            onClick={() => setOpen((value) => !value)}
          >
            {open ? <KeyboardArrowUpIcon fontSize="small" /> : <KeyboardArrowDownIcon fontSize="small" />}
          </IconButton>
        </TableCell>
        <TableCell sx={{ whiteSpace: 'nowrap' }}>{dateTime(charge.createdAt)}</TableCell>
        {showSeller ? (
          <TableCell>
            <RouterLink to={`/billing?${new URLSearchParams({ targetUserId: charge.ownerId }).toString()}`}>
              {charge.sellerName}
            </RouterLink>
          </TableCell>
        ) : null}
        <TableCell>
          {charge.orderId ? (
            <RouterLink to={orderHref(charge.orderId)} style={{ whiteSpace: 'nowrap' }}>
              {charge.orderNumber ?? 'Order'}
            </RouterLink>
          ) : (
            '—'
          )}
          {charge.kind === 'manual' ? (
            <Typography variant="caption" color="text.secondary" component="div">
              Charged by Layerline
            </Typography>
          ) : null}
          {charge.kind === 'adjustment' ? (
            <Typography variant="caption" color="text.secondary" component="div">
              Price adjustment after the exact quote
            </Typography>
          ) : null}
        </TableCell>
        <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
          {breakdown ? (
            <Tooltip
              title={`Items ${money(breakdown.itemsCents)} · Packaging ${money(breakdown.packagingCents)} · Shipping ${money(breakdown.shippingCents)}`}
            >
              <span data-testid="charge-amount">{money(charge.amountCents)}</span>
            </Tooltip>
          ) : (
            <span data-testid="charge-amount">{money(charge.amountCents)}</span>
          )}
        </TableCell>
        <TableCell>
          <Chip
            size="small"
            label={CHARGE_STATUS_LABELS[charge.status]}
            color={chargeStatusColor(charge.status)}
            data-testid="charge-status"
          />
          {charge.status === 'succeeded' && charge.refundedCents > 0 ? (
            <Chip size="small" variant="outlined" label="Partly refunded" sx={{ ml: 0.5 }} />
          ) : null}
          {charge.failureReason ? (
            // On a failed charge the bank's words; on one that went through (an adjustment, an order
            // below the smallest charge), why its amount is what it is.
            <Typography
              variant="body2"
              color={charge.status === 'failed' ? 'error' : 'text.secondary'}
              sx={{ mt: 0.5 }}
              data-testid="charge-failure"
            >
              {charge.failureReason}
            </Typography>
          ) : null}
        </TableCell>
        <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
          {charge.status === 'requires_action' && canAuthenticate ? (
            <Button size="small" variant="contained" component={RouterLink} to={`/billing/authenticate/${charge.id}`}>
              Authenticate
            </Button>
          ) : null}
          {onRefund && refundableCents(charge) > 0 ? (
            <Button size="small" color="error" onClick={() => onRefund(charge)}>
              Refund
            </Button>
          ) : null}
        </TableCell>
      </TableRow>
      <TableRow>
        <TableCell colSpan={columns} sx={{ py: 0, borderBottom: open && !hasRefunds ? undefined : 'none' }}>
          <Collapse in={open} unmountOnExit>
            <Box sx={{ py: 1.5, pl: 6, display: 'grid', gap: 0.5 }} data-testid="charge-details">
              {breakdown ? (
                <Typography variant="body2">
                  Items {money(breakdown.itemsCents)} · Packaging {money(breakdown.packagingCents)} · Shipping{' '}
                  {money(breakdown.shippingCents)}
                </Typography>
              ) : (
                <Typography variant="body2">A charge made by hand for this order.</Typography>
              )}
              <Typography variant="caption" color="text.secondary">
                {charge.attempt > 1 ? `Attempt ${charge.attempt} · ` : ''}
                {charge.provider === 'wallet' ? 'Paid from the prepaid balance' : charge.provider === 'sandbox' ? 'Sandbox (test mode)' : 'Stripe'} · updated{' '}
                {dateTime(charge.updatedAt)}
              </Typography>
            </Box>
          </Collapse>
        </TableCell>
      </TableRow>
      {charge.refunds.map((refund, index) => (
        <TableRow
          key={refund.id}
          data-testid="refund-row"
          sx={{ '& > td': { borderBottom: index < charge.refunds.length - 1 ? 'none' : undefined } }}
        >
          <TableCell padding="checkbox" />
          <TableCell sx={{ whiteSpace: 'nowrap', color: 'text.secondary' }}>{dateTime(refund.createdAt)}</TableCell>
          {showSeller ? <TableCell /> : null}
          <TableCell sx={{ color: 'text.secondary' }}>↳ Refund{refund.reason ? `: ${refund.reason}` : ''}</TableCell>
          <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
            −{money(refund.amountCents)}
          </TableCell>
          <TableCell>
            <Chip size="small" variant="outlined" label={refundStatusLabel(refund.status)} />
          </TableCell>
          <TableCell />
        </TableRow>
      ))}
    </Fragment>
  );
}

const REFUND_STATUS_LABELS: Record<string, string> = {
  pending: 'Refund pending',
  succeeded: 'Refunded',
  failed: 'Refund failed',
};
const refundStatusLabel = (status: string): string => REFUND_STATUS_LABELS[status] ?? status;
