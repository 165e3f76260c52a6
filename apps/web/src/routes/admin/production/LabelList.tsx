import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import PictureAsPdfOutlinedIcon from '@mui/icons-material/PictureAsPdfOutlined';
import { SHIPPING_INTEGRATION_LABELS, type Shipment } from '@layerline/contracts';
import {
  SHIPMENT_STATUS_LABELS,
  WRITEBACK_LABELS,
  formatMoney,
  shipmentLabelUrl,
  useVoidShipment,
} from '../../../api/shipping.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';

const STATUS_COLOUR: Record<Shipment['status'], 'default' | 'info' | 'success' | 'warning' | 'error' | 'primary'> = {
  purchasing: 'warning',
  purchased: 'primary',
  in_transit: 'info',
  delivered: 'success',
  voided: 'default',
  failed: 'error',
};

/** The labels bought for an order at the packing station: tracking, the PDF, and voiding one. */
export function LabelList({ shipments }: { shipments: Shipment[] }) {
  const voidLabel = useVoidShipment();
  const { showToast } = useToast();
  const [voiding, setVoiding] = useState<Shipment | null>(null);

  const confirmVoid = () => {
    if (!voiding) return;
    voidLabel.mutate(voiding.id, {
      onSuccess: (voided) =>
        showToast(
          voided.status === 'voided'
            ? `Label ${voided.trackingNumber ?? ''} voided`
            : (voided.error ?? `The label is ${SHIPMENT_STATUS_LABELS[voided.status].toLowerCase()}`),
          voided.status === 'voided' ? 'success' : 'warning',
        ),
      onError: (error) => showToast(error.message, 'error'),
      onSettled: () => setVoiding(null),
    });
  };

  return (
    <Stack spacing={1} data-testid="label-list">
      {shipments.map((shipment) => {
        const dead = shipment.status === 'voided' || shipment.status === 'failed';
        return (
          <Box
            key={shipment.id}
            data-testid="shipment"
            data-shipment-id={shipment.id}
            sx={{
              border: 1,
              borderColor: 'divider',
              borderRadius: 1,
              p: 1.5,
              opacity: dead ? 0.7 : 1,
            }}
          >
            <Stack
              direction="row"
              spacing={1}
              useFlexGap
              sx={{ alignItems: 'center', flexWrap: 'wrap', justifyContent: 'space-between' }}
            >
              <Box sx={{ minWidth: 0 }}>
                <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
                  <Chip size="small" color={STATUS_COLOUR[shipment.status]} label={SHIPMENT_STATUS_LABELS[shipment.status]} />
                  <Typography variant="body2" sx={{ fontWeight: 600 }}>
                    {shipment.parcelCount > 1 ? `Parcel ${shipment.parcelIndex + 1} of ${shipment.parcelCount} · ` : ''}
                    {[shipment.carrier, shipment.service].filter(Boolean).join(' · ') ||
                      SHIPPING_INTEGRATION_LABELS[shipment.provider]}
                  </Typography>
                  {shipment.attempt > 1 ? (
                    <Typography variant="caption" color="text.secondary">
                      attempt {shipment.attempt}
                    </Typography>
                  ) : null}
                </Stack>
                {shipment.trackingNumber ? (
                  <Typography variant="body2" sx={{ mt: 0.5 }}>
                    Tracking{' '}
                    {shipment.trackingUrl ? (
                      <Link
                        href={shipment.trackingUrl}
                        target="_blank"
                        rel="noopener"
                        data-testid="tracking-number"
                        sx={{ fontFamily: 'monospace' }}
                      >
                        {shipment.trackingNumber}
                      </Link>
                    ) : (
                      <Box component="span" data-testid="tracking-number" sx={{ fontFamily: 'monospace' }}>
                        {shipment.trackingNumber}
                      </Box>
                    )}
                    {shipment.costCents !== null ? ` · ${formatMoney(shipment.costCents, shipment.currency)}` : ''}
                  </Typography>
                ) : null}
                <Typography variant="caption" color="text.secondary" component="div">
                  {shipment.parcel.name} {shipment.parcel.lengthMm}×{shipment.parcel.widthMm}×{shipment.parcel.heightMm} mm,{' '}
                  {shipment.parcel.weightGrams} g
                  {shipment.trackingStatus ? ` · ${shipment.trackingStatus}` : ''}
                  {shipment.trackingNumber && !dead ? ` · ${WRITEBACK_LABELS[shipment.writeback]}` : ''}
                </Typography>
              </Box>
              {!dead && shipment.labelUrl ? (
                <Stack direction="row" spacing={1}>
                  <Button
                    size="small"
                    component="a"
                    href={shipmentLabelUrl(shipment.id)}
                    target="_blank"
                    rel="noopener"
                    startIcon={<PictureAsPdfOutlinedIcon />}
                  >
                    Print label
                  </Button>
                  {shipment.status === 'purchased' || shipment.status === 'in_transit' ? (
                    <Button size="small" color="error" onClick={() => setVoiding(shipment)}>
                      Void
                    </Button>
                  ) : null}
                </Stack>
              ) : null}
            </Stack>
            {shipment.error ? (
              <Alert severity={dead ? 'warning' : 'error'} sx={{ mt: 1 }}>
                {shipment.error}
              </Alert>
            ) : null}
            {shipment.writeback === 'failed' && shipment.writebackError ? (
              <Alert severity="warning" sx={{ mt: 1 }}>
                Tracking not sent to the marketplace: {shipment.writebackError}
              </Alert>
            ) : null}
          </Box>
        );
      })}
      <ConfirmDialog
        open={voiding !== null}
        title="Void this label?"
        confirmLabel="Void label"
        busy={voidLabel.isPending}
        onConfirm={confirmVoid}
        onCancel={() => setVoiding(null)}
      >
        The label {voiding?.trackingNumber ?? ''} is cancelled and refunded through{' '}
        {voiding ? SHIPPING_INTEGRATION_LABELS[voiding.provider] : 'the provider'}. Do not ship the parcel with it; a
        new label can be bought afterwards.
      </ConfirmDialog>
    </Stack>
  );
}
