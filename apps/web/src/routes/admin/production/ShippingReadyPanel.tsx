import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ORDER_STATUS_LABELS, type OrderSummary } from '@layerline/contracts';
import { usePackedOrders } from '../../../api/shipping.ts';
import { useOrder } from '../../../api/orders.ts';
import { ShippingLabelPanel } from './ShippingLabelPanel.tsx';

/**
 * Packed orders waiting for their label (and any order whose shipping panel is open, such as one
 * just packed or just labelled): each opens its parcel plan, rates and labels.
 */
export function ShippingReadyPanel({ open, onToggle }: { open: readonly string[]; onToggle(orderId: string): void }) {
  const packed = usePackedOrders();
  const summaries = packed.data?.items ?? [];
  const listed = new Set(summaries.map((order) => order.id));
  // Open orders that are no longer (or not yet) in the packed list stay on screen, newest first.
  const extra = open.filter((id) => !listed.has(id)).reverse();

  return (
    <Stack spacing={1.5}>
      {packed.error ? <Alert severity="error">{packed.error.message}</Alert> : null}
      {packed.isPending ? <CircularProgress size={24} aria-label="Loading packed orders" /> : null}
      {packed.data && summaries.length === 0 && extra.length === 0 ? (
        <Alert severity="info">No packed order waits for a label.</Alert>
      ) : null}
      {extra.map((orderId) => (
        <ShippingOrderCard key={orderId} orderId={orderId} open onToggle={onToggle} />
      ))}
      {summaries.map((summary) => (
        <ShippingOrderCard
          key={summary.id}
          orderId={summary.id}
          summary={summary}
          open={open.includes(summary.id)}
          onToggle={onToggle}
        />
      ))}
      {packed.data?.nextCursor ? (
        <Typography variant="caption" color="text.secondary">
          Showing the {summaries.length} newest packed orders.
        </Typography>
      ) : null}
    </Stack>
  );
}

function ShippingOrderCard({
  orderId,
  summary,
  open,
  onToggle,
}: {
  orderId: string;
  summary?: OrderSummary;
  open: boolean;
  onToggle(orderId: string): void;
}) {
  // Without a list row (an order that moved on), its header comes from the order itself.
  const detail = useOrder(summary ? null : orderId);
  const head = summary ?? detail.data;
  const address = head?.shippingAddress;
  return (
    <Card variant="outlined" data-testid="ready-to-ship" data-order-id={orderId}>
      <CardContent sx={{ '&:last-child': { pb: 2 } }}>
        <Stack
          direction="row"
          spacing={1}
          useFlexGap
          sx={{ justifyContent: 'space-between', alignItems: 'center', flexWrap: 'wrap' }}
        >
          <Box sx={{ minWidth: 0 }}>
            <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
              <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700 }}>
                Order {head?.externalId ?? '…'}
              </Typography>
              {head && head.status !== 'packed' ? (
                <Chip size="small" label={ORDER_STATUS_LABELS[head.status]} />
              ) : null}
            </Stack>
            {head ? (
              <Typography variant="caption" color="text.secondary">
                to {head.customerName || address?.name}
                {address ? ` · ${address.city}, ${address.country}` : ''}
                {head.ownerEmail ? ` · ${head.ownerEmail}` : ''}
              </Typography>
            ) : null}
          </Box>
          <Button
            variant={open ? 'text' : 'outlined'}
            onClick={() => onToggle(orderId)}
            aria-expanded={open}
          >
            {open ? 'Close' : 'Shipping'}
          </Button>
        </Stack>
        {open ? <ShippingLabelPanel orderId={orderId} /> : null}
      </CardContent>
    </Card>
  );
}
