import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { ORDER_STATUS_LABELS, WEBHOOK_EVENT_LABELS, type WebhookDelivery } from '@layerline/contracts';
import { useResendWebhookDelivery, useWebhookDeliveries } from '../../../../api/order-api.ts';
import { useToast } from '../../../../app/toast/ToastProvider.tsx';

const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function resultOf(delivery: WebhookDelivery): {
  label: string;
  color: 'success' | 'warning' | 'error' | 'default';
} {
  switch (delivery.state) {
    case 'delivered':
      return { label: 'Delivered', color: 'success' };
    case 'refused':
      return { label: 'Refused', color: 'error' };
    case 'failed':
      return { label: 'Failed', color: 'error' };
    case 'pending':
      return delivery.attempts === 0
        ? { label: 'Queued', color: 'default' }
        : { label: 'Retrying', color: 'warning' };
  }
}

function detailOf(delivery: WebhookDelivery): string {
  const attempts = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
  if (delivery.state === 'delivered') return `HTTP ${delivery.lastStatusCode} · ${attempts}`;
  return [delivery.lastError, delivery.attempts > 0 ? attempts : ''].filter(Boolean).join(' · ');
}

function changeOf(delivery: WebhookDelivery): string {
  if (delivery.type !== 'order.status_changed') return WEBHOOK_EVENT_LABELS[delivery.type];
  const to = ORDER_STATUS_LABELS[delivery.toStatus];
  return delivery.fromStatus
    ? `${ORDER_STATUS_LABELS[delivery.fromStatus]} → ${to}`
    : `New order, ${to.toLowerCase()}`;
}

/** The latest events sent to the seller's webhook URL, what their receiver answered, and a resend. */
export function WebhookDeliveriesList() {
  const deliveries = useWebhookDeliveries();
  const resend = useResendWebhookDelivery();
  const { showToast } = useToast();

  if (deliveries.isPending) return <Typography variant="body2">Loading recent deliveries…</Typography>;
  if (deliveries.isError) {
    return (
      <Typography color="error">Could not load recent deliveries: {deliveries.error.message}</Typography>
    );
  }
  if (deliveries.data.length === 0) {
    return (
      <Typography variant="body2" color="text.secondary">
        No deliveries yet. The next status change of one of your orders is sent here.
      </Typography>
    );
  }
  return (
    <Box sx={{ overflowX: 'auto' }}>
      <Table size="small" aria-label="Recent webhook deliveries">
        <TableHead>
          <TableRow>
            <TableCell>When</TableCell>
            <TableCell>Order</TableCell>
            <TableCell>Change</TableCell>
            <TableCell>Result</TableCell>
            <TableCell align="right" aria-label="Actions" />
          </TableRow>
        </TableHead>
        <TableBody>
          {deliveries.data.map((delivery) => {
            const result = resultOf(delivery);
            return (
              <TableRow key={delivery.id} data-testid="webhook-delivery">
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  {WHEN.format(new Date(delivery.createdAt))}
                </TableCell>
                <TableCell>
                  <Link component={RouterLink} to={`/orders?order=${delivery.orderId}`}>
                    {delivery.orderExternalId}
                  </Link>
                </TableCell>
                <TableCell>{changeOf(delivery)}</TableCell>
                <TableCell>
                  <Chip size="small" label={result.label} color={result.color} sx={{ mr: 1 }} />
                  <Typography
                    component="span"
                    variant="body2"
                    color="text.secondary"
                    title={delivery.eventId}
                  >
                    {detailOf(delivery)}
                  </Typography>
                </TableCell>
                <TableCell align="right">
                  {delivery.state === 'pending' ? null : (
                    <Button
                      size="small"
                      disabled={resend.isPending && resend.variables === delivery.id}
                      aria-label={`Resend the ${changeOf(delivery)} event of order ${delivery.orderExternalId}`}
                      onClick={() =>
                        resend.mutate(delivery.id, {
                          onSuccess: () => showToast('Sending it again'),
                          onError: (error) => showToast(error.message, 'error'),
                        })
                      }
                    >
                      Resend
                    </Button>
                  )}
                </TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
    </Box>
  );
}
