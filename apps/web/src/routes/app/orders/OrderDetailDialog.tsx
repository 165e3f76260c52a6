import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Divider from '@mui/material/Divider';
import LinearProgress from '@mui/material/LinearProgress';
import MenuItem from '@mui/material/MenuItem';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  PRINT_JOB_STATUS_LABELS,
  type Order,
  type OrderProduction,
  type OrderStatus,
} from '@layerline/contracts';
import { useChangeOrderStatus, useOrder } from '../../../api/orders.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { ChangeWindowActions } from './ChangeWindowActions.tsx';
import { OrderCharge } from './OrderCharge.tsx';
import { dateTime, money, statusColor, statusLabel } from './order-format.ts';
import { OrderShipments } from './OrderShipments.tsx';
import { OrderClaimButton } from '../claims/OrderClaimButton.tsx';

/** What an admin may move an order to from each status (mirrors the server's lifecycle table). */
const NEXT: Record<OrderStatus, OrderStatus[]> = {
  received: ['accepted', 'on_hold', 'cancelled'],
  on_hold: ['accepted', 'cancelled'],
  accepted: ['in_production', 'on_hold', 'cancelled'],
  in_production: ['printed', 'on_hold', 'cancelled'],
  printed: ['packed', 'cancelled'],
  packed: ['shipped', 'cancelled'],
  shipped: ['delivered'],
  delivered: [],
  cancelled: [],
};

const ACTOR: Record<string, string> = {
  user: 'Seller',
  admin: 'Layerline',
  system: 'Layerline (automatic)',
  marketplace: 'Marketplace',
};

/** An order's page as a dialog: items, address, hold reason, and the timeline of its statuses. */
export function OrderDetailDialog({
  orderId,
  onClose,
  admin = false,
}: {
  orderId: string | null;
  onClose(): void;
  admin?: boolean;
}) {
  const order = useOrder(orderId);
  return (
    <Dialog
      open={Boolean(orderId)}
      onClose={onClose}
      fullWidth
      maxWidth="md"
      aria-labelledby="order-detail-title"
    >
      <DialogTitle id="order-detail-title">
        {order.data ? (
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
            Order {order.data.externalId}
            <Chip
              size="small"
              label={statusLabel(order.data.status)}
              color={statusColor(order.data.status)}
              data-testid="order-status"
            />
          </Box>
        ) : (
          'Order'
        )}
      </DialogTitle>
      <DialogContent dividers>
        {order.isPending ? <Skeleton variant="rounded" height={240} /> : null}
        {order.isError ? <Alert severity="error">{order.error.message}</Alert> : null}
        {order.data ? <OrderBody order={order.data} admin={admin} /> : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}

function OrderBody({ order, admin }: { order: Order; admin: boolean }) {
  const a = order.shippingAddress;
  return (
    <Box>
      {order.holdReason ? (
        <Alert severity="warning" sx={{ mb: 2 }} data-testid="hold-reason">
          {order.holdReason}
        </Alert>
      ) : null}
      {order.note ? (
        <Alert severity="info" sx={{ mb: 2 }} data-testid="order-note">
          Note: {order.note}
        </Alert>
      ) : null}
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, mb: 2 }}>
        <Box>
          <Typography variant="overline">Ship to</Typography>
          <Typography
            variant="body2"
            component="address"
            sx={{ fontStyle: 'normal', whiteSpace: 'pre-line' }}
          >
            {[
              a.name,
              a.company,
              a.line1,
              a.line2,
              `${a.postalCode} ${a.city}${a.region ? `, ${a.region}` : ''}`,
              a.country,
            ]
              .filter(Boolean)
              .join('\n')}
          </Typography>
        </Box>
        <Box>
          <Typography variant="overline">Order</Typography>
          <Typography variant="body2">Placed {dateTime(order.placedAt)}</Typography>
          <Typography variant="body2">
            From {order.shopName ?? order.platform} · total {money(order.totalCents, order.currency)}
          </Typography>
          {admin && order.ownerEmail ? (
            <Typography variant="body2">Seller {order.ownerEmail}</Typography>
          ) : null}
        </Box>
      </Box>
      <Table size="small" aria-label="Items" sx={{ mb: 2 }}>
        <TableHead>
          <TableRow>
            <TableCell>Item</TableCell>
            <TableCell>SKU</TableCell>
            <TableCell>Product</TableCell>
            <TableCell align="right">Qty</TableCell>
            <TableCell align="right">Price</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {order.items.map((item) => (
            <TableRow key={item.id}>
              <TableCell>{item.title}</TableCell>
              <TableCell>
                <code>{item.sku}</code>
              </TableCell>
              <TableCell>
                {item.productName ?? <Chip size="small" color="warning" label="No matching variant" />}
              </TableCell>
              <TableCell align="right">{item.quantity}</TableCell>
              <TableCell align="right">{money(item.unitPriceCents, order.currency)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {order.production ? <ProductionProgress production={order.production} /> : null}
      <OrderCharge order={order} admin={admin} />
      <OrderShipments order={order} admin={admin} />
      <OrderClaimButton order={order} />
      <Divider sx={{ mb: 2 }} />
      <Typography variant="overline">Timeline</Typography>
      <Box component="ol" sx={{ listStyle: 'none', p: 0, m: 0 }} data-testid="order-timeline">
        {order.events.map((event) => (
          <Box
            component="li"
            key={event.id}
            sx={{ borderLeft: 2, borderColor: 'divider', pl: 2, pb: 1.5, position: 'relative' }}
          >
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {statusLabel(event.toStatus)}
            </Typography>
            <Typography variant="caption" color="text.secondary">
              {dateTime(event.createdAt)} · {event.actorEmail ?? ACTOR[event.actorKind] ?? event.actorKind}
            </Typography>
            {event.reason ? <Typography variant="body2">{event.reason}</Typography> : null}
          </Box>
        ))}
      </Box>
      {admin ? <StatusActions order={order} /> : <ChangeWindowActions order={order} />}
    </Box>
  );
}

/** The order's parts on the print farm: how many are printed, and each print job's status. */
function ProductionProgress({ production }: { production: OrderProduction }) {
  const { partsDone, partsTotal } = production;
  return (
    <Box sx={{ mb: 2 }} data-testid="order-production">
      <Typography variant="overline">Production</Typography>
      <Typography variant="body2" sx={{ mb: 0.5 }}>
        Printed {partsDone} of {partsTotal} part{partsTotal === 1 ? '' : 's'}
        {production.partsPrinting > 0 ? ` · ${production.partsPrinting} printing now` : ''}
      </Typography>
      <LinearProgress
        variant="determinate"
        value={partsTotal > 0 ? Math.min(100, (partsDone / partsTotal) * 100) : 0}
        sx={{ height: 6, borderRadius: 3, mb: 1 }}
        aria-label="Parts printed"
      />
      <Box component="ul" sx={{ listStyle: 'none', p: 0, m: 0 }}>
        {production.jobs.map((job) => (
          <Box
            component="li"
            key={job.id}
            sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', py: 0.25 }}
          >
            <Typography variant="body2">
              {job.partName}
              {job.copy > 1 ? ` (copy ${job.copy})` : ''}
            </Typography>
            <Chip
              size="small"
              variant="outlined"
              label={
                job.status === 'printing' && job.progress !== null
                  ? `${PRINT_JOB_STATUS_LABELS[job.status]} ${Math.round(job.progress * 100)} %`
                  : PRINT_JOB_STATUS_LABELS[job.status]
              }
            />
            {job.attempt > 1 ? (
              <Typography variant="caption" color="text.secondary">
                Reprint {job.attempt}
              </Typography>
            ) : null}
          </Box>
        ))}
      </Box>
    </Box>
  );
}

function StatusActions({ order }: { order: Order }) {
  const { showToast } = useToast();
  const change = useChangeOrderStatus();
  const [to, setTo] = useState<OrderStatus | ''>('');
  const [reason, setReason] = useState('');
  const options = NEXT[order.status];
  if (options.length === 0) return null;

  const submit = (target: OrderStatus) =>
    change.mutate(
      { orderId: order.id, to: target, reason },
      {
        onSuccess: () => {
          setTo('');
          setReason('');
          showToast(`Order ${statusLabel(target).toLowerCase()}`, 'success');
        },
        onError: (e) => showToast(e.message, 'error'),
      },
    );

  return (
    <Box sx={{ display: 'flex', gap: 1, mt: 2, alignItems: 'center', flexWrap: 'wrap' }}>
      <TextField
        size="small"
        select
        label="Move to"
        value={to}
        onChange={(e) => setTo(e.target.value as OrderStatus)}
        sx={{ minWidth: 180 }}
      >
        {options.map((status) => (
          <MenuItem key={status} value={status}>
            {statusLabel(status)}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        size="small"
        label="Reason"
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        sx={{ flex: 1, minWidth: 200 }}
      />
      <Button variant="contained" disabled={!to || change.isPending} onClick={() => to && submit(to)}>
        Change status
      </Button>
    </Box>
  );
}
