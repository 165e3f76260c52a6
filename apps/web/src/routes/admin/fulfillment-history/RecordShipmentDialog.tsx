import { useState, type ChangeEvent } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import DeleteIcon from '@mui/icons-material/DeleteOutlineOutlined';
import type { FulfillmentRecord } from '@layerline/contracts';
import { useCreateFulfillmentRecord } from '../../../api/fulfillment.ts';
import { emptyItem, emptyRecordForm, recordBody, type RecordFormState } from './record-form.ts';
import { SellerPicker, type PickedSeller } from './SellerPicker.tsx';

type TextKey = Exclude<keyof RecordFormState, 'items' | 'sellerId'>;

/** createFulfillmentHistoryRecord: a shipment made outside the farm's labels, recorded for a seller. */
export function RecordShipmentDialog({ onClose, onSaved }: { onClose(): void; onSaved(record: FulfillmentRecord): void }) {
  const [form, setForm] = useState<RecordFormState>(() => emptyRecordForm(new Date().toISOString().slice(0, 10)));
  const [seller, setSeller] = useState<PickedSeller | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const create = useCreateFulfillmentRecord();

  const set = (key: TextKey) => (event: ChangeEvent<HTMLInputElement>) =>
    setForm((current) => ({ ...current, [key]: event.target.value }));
  const field = (key: TextKey, label: string, extra: Record<string, unknown> = {}) => (
    <TextField label={label} value={form[key]} onChange={set(key)} size="small" fullWidth {...extra} />
  );
  const setItem = (index: number, key: 'sku' | 'title' | 'quantity', value: string) =>
    setForm((current) => ({ ...current, items: current.items.map((item, i) => (i === index ? { ...item, [key]: value } : item)) }));

  const submit = () => {
    const result = recordBody({ ...form, sellerId: seller?.id ?? '' });
    if ('error' in result) {
      setProblem(result.error);
      return;
    }
    setProblem(null);
    create.mutate(result.body, { onSuccess: onSaved });
  };
  const error = problem ?? create.error?.message;

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="record-shipment-title">
      <DialogTitle id="record-shipment-title">Record a shipment</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Typography variant="body2" color="text.secondary">
            For a parcel that left without a label bought here. It joins the seller’s fulfilment history, and the
            record is kept in the audit log with your name.
          </Typography>
          {error ? <Alert severity="error">{error}</Alert> : null}
          <SellerPicker value={seller} onChange={setSeller} label="Seller" autoFocus />
          <Stack direction="row" spacing={1}>
            {field('orderNumber', 'Order number', { required: true })}
            {field('channel', 'Channel')}
          </Stack>
          {field('buyerName', 'Buyer')}
          <Typography variant="subtitle2">Items</Typography>
          {form.items.map((item, index) => (
            <Stack key={index} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <TextField label="SKU" value={item.sku} onChange={(e) => setItem(index, 'sku', e.target.value)} size="small" sx={{ flex: 1 }} />
              <TextField label="Title" value={item.title} onChange={(e) => setItem(index, 'title', e.target.value)} size="small" sx={{ flex: 1.5 }} />
              <TextField
                label="Quantity"
                type="number"
                value={item.quantity}
                onChange={(e) => setItem(index, 'quantity', e.target.value)}
                size="small"
                sx={{ width: 100, flexShrink: 0 }}
                slotProps={{ htmlInput: { min: 1 } }}
              />
              <IconButton
                aria-label={`Remove item ${index + 1}`}
                onClick={() => setForm((current) => ({ ...current, items: current.items.filter((_, i) => i !== index) }))}
                disabled={form.items.length === 1}
              >
                <DeleteIcon />
              </IconButton>
            </Stack>
          ))}
          <Button size="small" sx={{ alignSelf: 'flex-start' }} onClick={() => setForm((current) => ({ ...current, items: [...current.items, emptyItem()] }))}>
            Add an item
          </Button>
          <Stack direction="row" spacing={1}>
            {field('printCost', 'Print cost ($)', { inputMode: 'decimal' })}
            {field('packaging', 'Packaging ($)', { inputMode: 'decimal' })}
            {field('shipping', 'Shipping ($)', { inputMode: 'decimal' })}
          </Stack>
          <Stack direction="row" spacing={1}>
            {field('carrier', 'Carrier')}
            {field('service', 'Service')}
          </Stack>
          <Stack direction="row" spacing={1}>
            {field('trackingNumber', 'Tracking number')}
            {field('shippedAt', 'Shipped on', { type: 'date', slotProps: { inputLabel: { shrink: true } } })}
          </Stack>
          {field('trackingUrl', 'Tracking URL', { placeholder: 'https://…' })}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={create.isPending}>
          Cancel
        </Button>
        <Button variant="contained" onClick={submit} disabled={create.isPending}>
          Record shipment
        </Button>
      </DialogActions>
    </Dialog>
  );
}
