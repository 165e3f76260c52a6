import { useRef, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Radio from '@mui/material/Radio';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import {
  SHIPPING_HOLD_PREFIX,
  SHIPPING_INTEGRATION_LABELS,
  type Order,
  type OrderRates,
  type ParcelPlan,
  type ShippingRate,
} from '@layerline/contracts';
import {
  formatMoney,
  isLiveShipment,
  useBuyLabels,
  useOrderRates,
  useOrderShipments,
} from '../../../api/shipping.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { LabelList } from './LabelList.tsx';

const grams = (value: number): string => (value >= 1000 ? `${+(value / 1000).toFixed(2)} kg` : `${Math.round(value)} g`);

function parcelLine(parcel: ParcelPlan): string {
  return `${parcel.name}, ${parcel.lengthMm}×${parcel.widthMm}×${parcel.heightMm} mm, ${grams(parcel.weightGrams)}, ${parcel.partCount} part${parcel.partCount === 1 ? '' : 's'}`;
}

const shippingHold = (order: Order): boolean =>
  order.status === 'on_hold' && (order.holdReason ?? '').startsWith(SHIPPING_HOLD_PREFIX);

/** Whether the order still needs labels: packed (or held by shipping), and some parcel has no live label. */
function needsLabels(order: Order): boolean {
  if (order.status !== 'packed' && !shippingHold(order)) return false;
  const live = order.shipments.filter(isLiveShipment);
  if (live.length === 0) return true;
  const parcelCount = Math.max(...live.map((s) => s.parcelCount));
  return new Set(live.map((s) => s.parcelIndex)).size < parcelCount;
}

/**
 * The packing station's shipping step for one order: its labels (tracking, PDF, void) and, while a
 * parcel still has none, the parcel plan with each parcel's rates and "Buy label". `title` (the
 * admin's order dialog): shown with that heading, and only when there is a label or one to buy.
 */
export function ShippingLabelPanel({ orderId, title }: { orderId: string; title?: string }) {
  const order = useOrderShipments(orderId);
  const data = order.data;
  const held = data?.status === 'on_hold';
  const nothing = data !== undefined && data.shipments.length === 0 && !needsLabels(data);
  if (title && (!data || (nothing && !shippingHold(data)))) return null;
  return (
    <Box data-testid="shipping-panel" data-order-id={orderId} sx={title ? { mb: 2 } : { mt: 1.5 }}>
      {title ? <Typography variant="overline">{title}</Typography> : null}
      {order.isPending ? <Skeleton variant="rounded" height={80} /> : null}
      {order.error ? <Alert severity="error">{order.error.message}</Alert> : null}
      {data ? (
        <Stack spacing={1.5}>
          {held && !title ? (
            <Alert severity="warning" data-testid="shipping-hold">
              <Typography variant="body2" sx={{ fontWeight: 600 }}>
                On hold
              </Typography>
              {data.holdReason ?? 'No reason was given.'}
              <Typography variant="body2" sx={{ mt: 0.5 }}>
                {shippingHold(data)
                  ? 'Once the cause is fixed, buy the label again below: that releases the hold.'
                  : 'Release the order on All orders once the cause is fixed.'}
              </Typography>
            </Alert>
          ) : null}
          {data.shipments.length > 0 ? <LabelList shipments={data.shipments} /> : null}
          {needsLabels(data) ? <RatesAndBuy order={data} /> : null}
          {nothing && !held ? (
            <Typography variant="body2" color="text.secondary">
              No label: the order is {data.status.replaceAll('_', ' ')}.
            </Typography>
          ) : null}
        </Stack>
      ) : null}
    </Box>
  );
}

function RatesAndBuy({ order }: { order: Order }) {
  const rates = useOrderRates(order.id);
  const buy = useBuyLabels();
  const { showToast } = useToast();
  const [chosen, setChosen] = useState<Record<number, string>>({});
  // The button is disabled while the request runs; this also stops a second click in the same frame.
  const inFlight = useRef(false);
  const data = rates.data;

  if (rates.isPending) {
    return (
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <CircularProgress size={18} />
        <Typography variant="body2">Getting rates…</Typography>
      </Stack>
    );
  }
  if (rates.error) {
    return (
      <Alert
        severity="error"
        data-testid="rates-error"
        action={
          <Button color="inherit" size="small" onClick={() => void rates.refetch()}>
            Try again
          </Button>
        }
      >
        No rates: {rates.error.message}
      </Alert>
    );
  }
  if (!data) return null;

  // Parcels that kept their label (another parcel's was voided): the server buys only the others.
  const labelled = new Map(
    order.shipments.filter(isLiveShipment).map((shipment) => [shipment.parcelIndex, shipment] as const),
  );
  const selection = data.parcels.map(
    (entry, index) =>
      chosen[index] ??
      entry.rates.find((rate) => rate.recommended)?.rateId ??
      // A labelled parcel still needs a rate in the list (one per parcel); the server does not use it.
      (labelled.has(index) ? (entry.rates[0]?.rateId ?? null) : null),
  );
  const toBuy = data.parcels.map((_, index) => index).filter((index) => !labelled.has(index));
  const complete = toBuy.every((index) => selection[index] !== null);
  const total = toBuy.reduce((sum, index) => {
    const rate = data.parcels[index]!.rates.find((r) => r.rateId === selection[index]);
    return rate ? sum + rate.amountCents : sum;
  }, 0);
  const currency = data.parcels[0]?.rates[0]?.currency ?? order.currency;
  const rateIds = selection.every((rateId): rateId is string => rateId !== null) ? selection : undefined;

  const purchase = () => {
    if (inFlight.current || !complete) return;
    inFlight.current = true;
    buy.mutate(
      { orderId: order.id, rateIds },
      {
        onSuccess: ({ shipments }) => {
          const before = new Set(order.shipments.map((s) => s.id));
          const numbers = shipments
            .filter((s) => isLiveShipment(s) && !before.has(s.id))
            .map((s) => s.trackingNumber)
            .filter(Boolean);
          showToast(
            numbers.length > 0
              ? `Label bought for order ${order.externalId}: ${numbers.join(', ')}`
              : `Label ordered for order ${order.externalId}`,
          );
          setChosen({});
        },
        // Also as a toast: the order may have gone on hold meanwhile (its reason shows above).
        onError: (error) => showToast(`The label was not bought: ${error.message}`, 'error'),
        onSettled: () => {
          inFlight.current = false;
        },
      },
    );
  };

  return (
    <Box data-testid="shipping-rates">
      <Typography variant="body2" sx={{ mb: 1 }}>
        Promise: <strong>{data.promise}</strong> · rates from {SHIPPING_INTEGRATION_LABELS[data.integration]}
        {data.parcels.length > 1 ? ` · split into ${data.parcels.length} parcels` : ''}
      </Typography>
      <Stack spacing={1.5}>
        {data.parcels.map((entry, index) => (
          <ParcelRates
            key={entry.parcel.parcelId + index}
            index={index}
            count={data.parcels.length}
            entry={entry}
            labelledWith={labelled.get(index)?.trackingNumber ?? (labelled.has(index) ? '' : null)}
            selected={selection[index] ?? null}
            onSelect={(rateId) => setChosen((current) => ({ ...current, [index]: rateId }))}
          />
        ))}
      </Stack>
      {buy.error ? (
        <Alert severity="error" sx={{ mt: 1.5 }} data-testid="buy-label-error">
          The label was not bought: {buy.error.message}
        </Alert>
      ) : null}
      <Stack direction="row" spacing={1.5} sx={{ mt: 1.5, alignItems: 'center', flexWrap: 'wrap' }} useFlexGap>
        <Button variant="contained" onClick={purchase} disabled={buy.isPending || !complete}>
          {buy.isPending
            ? 'Buying…'
            : `Buy ${toBuy.length > 1 ? `${toBuy.length} labels` : 'label'}${order.status === 'on_hold' ? ' again' : ''}`}
        </Button>
        {complete && total > 0 ? (
          <Typography variant="body2" color="text.secondary">
            {formatMoney(total, currency)}
          </Typography>
        ) : null}
        {!complete ? (
          <Typography variant="body2" color="warning.main">
            No rate keeps the promise for every parcel: choose one for each.
          </Typography>
        ) : null}
      </Stack>
    </Box>
  );
}

function ParcelRates({
  index,
  count,
  entry,
  labelledWith,
  selected,
  onSelect,
}: {
  index: number;
  count: number;
  entry: OrderRates['parcels'][number];
  /** The tracking number of this parcel's label when it has one ('' before the number is known). */
  labelledWith: string | null;
  selected: string | null;
  onSelect(rateId: string): void;
}) {
  const title = count > 1 ? `Parcel ${index + 1} of ${count}` : 'Parcel';
  return (
    <Box data-testid="parcel-plan" sx={{ border: 1, borderColor: 'divider', borderRadius: 1, p: 1.5 }}>
      <Typography variant="body2" sx={{ fontWeight: 600 }}>
        {title}: {parcelLine(entry.parcel)}
      </Typography>
      {labelledWith !== null ? (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
          Has its label{labelledWith ? ` (${labelledWith})` : ''}: nothing to buy for this parcel.
        </Typography>
      ) : entry.rates.length === 0 ? (
        <Alert severity="warning" sx={{ mt: 1 }}>
          No carrier offers a rate for this parcel.
        </Alert>
      ) : (
        <TableContainer>
          <Table size="small" aria-label={`Rates for ${title.toLowerCase()}`}>
            <TableHead>
              <TableRow>
                <TableCell padding="checkbox" />
                <TableCell>Carrier</TableCell>
                <TableCell>Service</TableCell>
                <TableCell align="right">Price</TableCell>
                <TableCell align="right">Days</TableCell>
                <TableCell>Promise</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {entry.rates.map((rate) => (
                <RateRow key={rate.rateId} rate={rate} selected={rate.rateId === selected} onSelect={onSelect} />
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
    </Box>
  );
}

function RateRow({ rate, selected, onSelect }: { rate: ShippingRate; selected: boolean; onSelect(rateId: string): void }) {
  const label = `${rate.carrier} ${rate.service}`;
  return (
    <TableRow
      hover
      selected={selected}
      onClick={() => onSelect(rate.rateId)}
      sx={{ cursor: 'pointer' }}
      data-testid="rate"
      data-recommended={rate.recommended ? 'true' : 'false'}
    >
      <TableCell padding="checkbox">
        <Radio
          size="small"
          checked={selected}
          onChange={() => onSelect(rate.rateId)}
          slotProps={{ input: { 'aria-label': label } }}
        />
      </TableCell>
      <TableCell>{rate.carrier}</TableCell>
      <TableCell>
        {rate.service}
        {rate.recommended ? <Chip size="small" color="primary" label="Recommended" sx={{ ml: 1 }} /> : null}
      </TableCell>
      <TableCell align="right">{formatMoney(rate.amountCents, rate.currency)}</TableCell>
      <TableCell align="right">{rate.estimatedDays ?? '—'}</TableCell>
      <TableCell>
        {rate.meetsPromise ? (
          <Chip size="small" color="success" variant="outlined" label="Meets promise" />
        ) : (
          <Chip size="small" color="warning" variant="outlined" label="Late" />
        )}
      </TableCell>
    </TableRow>
  );
}
