import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import PictureAsPdfOutlinedIcon from '@mui/icons-material/PictureAsPdfOutlined';
import type { Order, Shipment } from '@layerline/contracts';
import { SHIPMENT_STATUS_LABELS, WRITEBACK_LABELS, formatMoney, shipmentLabelUrl } from '../../../api/shipping.ts';
import { ShippingLabelPanel } from '../../admin/production/ShippingLabelPanel.tsx';
import { dateTime } from './order-format.ts';

const STATUS_COLOUR: Record<Shipment['status'], 'default' | 'info' | 'success' | 'warning' | 'error' | 'primary'> = {
  purchasing: 'warning',
  purchased: 'primary',
  in_transit: 'info',
  delivered: 'success',
  voided: 'default',
  failed: 'error',
};

const WRITEBACK_COLOUR: Record<Shipment['writeback'], 'default' | 'success' | 'warning' | 'error'> = {
  none: 'default',
  pending: 'warning',
  sent: 'success',
  failed: 'error',
};

/**
 * An order's labels as its seller sees them: carrier, tracking, where the parcel is, and the label.
 * Admins get the packing station's panel instead (void a label, buy one for a packed order).
 */
export function OrderShipments({ order, admin = false }: { order: Order; admin?: boolean }) {
  if (admin) return <ShippingLabelPanel orderId={order.id} title="Shipping" />;
  // `shipments` arrived with issue 12: a server from before answers without it.
  const shipments = order.shipments ?? [];
  if (shipments.length === 0) return null;
  return (
    <Box sx={{ mb: 2 }} data-testid="order-shipments">
      <Typography variant="overline">Shipping</Typography>
      <Box component="ul" sx={{ listStyle: 'none', p: 0, m: 0, display: 'flex', flexDirection: 'column', gap: 1 }}>
        {shipments.map((shipment) => (
          <ShipmentItem key={shipment.id} shipment={shipment} />
        ))}
      </Box>
    </Box>
  );
}

function ShipmentItem({ shipment }: { shipment: Shipment }) {
  const dead = shipment.status === 'voided' || shipment.status === 'failed';
  return (
    <Box
      component="li"
      data-testid="order-shipment"
      sx={{ border: 1, borderColor: 'divider', borderRadius: 1, p: 1.5, opacity: dead ? 0.7 : 1 }}
    >
      <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
        <Chip
          size="small"
          color={STATUS_COLOUR[shipment.status]}
          label={SHIPMENT_STATUS_LABELS[shipment.status]}
          data-testid="shipment-status"
        />
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          {shipment.parcelCount > 1 ? `Parcel ${shipment.parcelIndex + 1} of ${shipment.parcelCount} · ` : ''}
          {[shipment.carrier, shipment.service].filter(Boolean).join(' · ') || 'Label'}
        </Typography>
        {shipment.costCents !== null ? (
          <Typography variant="body2" color="text.secondary">
            {formatMoney(shipment.costCents, shipment.currency)}
          </Typography>
        ) : null}
      </Box>
      {shipment.trackingNumber ? (
        <Typography variant="body2" sx={{ mt: 0.5 }}>
          Tracking{' '}
          {shipment.trackingUrl ? (
            <Link
              href={shipment.trackingUrl}
              target="_blank"
              rel="noopener"
              sx={{ fontFamily: 'monospace' }}
              data-testid="shipment-tracking"
            >
              {shipment.trackingNumber}
            </Link>
          ) : (
            <Box component="span" sx={{ fontFamily: 'monospace' }} data-testid="shipment-tracking">
              {shipment.trackingNumber}
            </Box>
          )}
          {!dead && shipment.labelUrl ? (
            <>
              {' · '}
              <Link
                href={shipmentLabelUrl(shipment.id)}
                target="_blank"
                rel="noopener"
                sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, verticalAlign: 'bottom' }}
              >
                <PictureAsPdfOutlinedIcon fontSize="small" />
                Label PDF
              </Link>
            </>
          ) : null}
        </Typography>
      ) : null}
      {shipment.trackingStatus ? (
        <Typography variant="body2" sx={{ mt: 0.5 }} data-testid="shipment-tracking-status">
          {shipment.trackingStatus}
        </Typography>
      ) : null}
      <Typography variant="caption" color="text.secondary" component="div" sx={{ mt: 0.5 }}>
        {shipment.deliveredAt
          ? `Delivered ${dateTime(shipment.deliveredAt)}`
          : shipment.shippedAt
            ? `Shipped ${dateTime(shipment.shippedAt)}`
            : `Label bought ${dateTime(shipment.createdAt)}`}
      </Typography>
      {shipment.trackingNumber && !dead ? (
        <Box sx={{ mt: 0.75 }}>
          <Chip
            size="small"
            variant="outlined"
            color={WRITEBACK_COLOUR[shipment.writeback]}
            label={WRITEBACK_LABELS[shipment.writeback]}
            data-testid="shipment-writeback"
            title={shipment.writeback === 'failed' ? (shipment.writebackError ?? undefined) : undefined}
          />
          {shipment.writeback === 'failed' && shipment.writebackError ? (
            <Typography variant="caption" color="text.secondary" component="div">
              {shipment.writebackError}. Layerline sees this and can send it again.
            </Typography>
          ) : null}
        </Box>
      ) : null}
      {shipment.error && shipment.status === 'failed' ? (
        <Typography variant="caption" color="error" component="div" sx={{ mt: 0.5 }}>
          {shipment.error}
        </Typography>
      ) : null}
    </Box>
  );
}
