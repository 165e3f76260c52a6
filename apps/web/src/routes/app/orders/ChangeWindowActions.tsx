import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import TextField from '@mui/material/TextField';
import { orderAddressChangeInputSchema, type Order, type ShippingAddress } from '@layerline/contracts';
import { useCancelOrder, useChangeOrderAddress } from '../../../api/orders.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { dateTime } from './order-format.ts';

const FIELDS: { name: keyof ShippingAddress; label: string; wide?: boolean }[] = [
  { name: 'name', label: 'Recipient' },
  { name: 'company', label: 'Company' },
  { name: 'line1', label: 'Address line 1', wide: true },
  { name: 'line2', label: 'Address line 2', wide: true },
  { name: 'city', label: 'City' },
  { name: 'region', label: 'State / region' },
  { name: 'postalCode', label: 'Postal code' },
  { name: 'country', label: 'Country code' },
  { name: 'phone', label: 'Phone' },
  { name: 'email', label: 'Email' },
];

/**
 * The change window on the order page (docs/change-window.md): until the order is released to
 * production the seller changes its address or cancels it at no cost; after, the server's reason.
 */
export function ChangeWindowActions({ order }: { order: Order }) {
  const { showToast } = useToast();
  const changeAddress = useChangeOrderAddress();
  const cancel = useCancelOrder();
  const [editing, setEditing] = useState(false);
  const [address, setAddress] = useState<ShippingAddress>(order.shippingAddress);
  const [reason, setReason] = useState('');
  const [error, setError] = useState('');

  if (order.changeWindowClosedReason) {
    if (order.status === 'cancelled') return null;
    return (
      <Alert severity="info" sx={{ mt: 2 }} data-testid="change-window-closed">
        {order.changeWindowClosedReason}
      </Alert>
    );
  }

  function saveAddress() {
    const parsed = orderAddressChangeInputSchema.safeParse({ shippingAddress: { ...address, country: address.country.trim().toUpperCase() } });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'Check the address');
      return;
    }
    setError('');
    changeAddress.mutate(
      { orderId: order.id, shippingAddress: parsed.data.shippingAddress },
      {
        onSuccess: () => {
          setEditing(false);
          showToast('Shipping address changed');
        },
        onError: (e) => setError(e.message),
      },
    );
  }

  return (
    <Box sx={{ mt: 2 }} data-testid="change-window">
      <Alert severity="success" sx={{ mb: 2 }}>
        {order.releaseAt
          ? `Not released to production yet: until ${dateTime(order.releaseAt)} you can change the address or cancel at no cost.`
          : 'Not released to production yet: you can change the address or cancel at no cost.'}
      </Alert>
      {error ? (
        <Alert severity="error" sx={{ mb: 2 }} role="alert">
          {error}
        </Alert>
      ) : null}
      {editing ? (
        <Box component="form" aria-label="New shipping address" noValidate onSubmit={(e) => { e.preventDefault(); saveAddress(); }}>
          <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2, mb: 2 }}>
            {FIELDS.map((field) => (
              <TextField
                key={field.name}
                size="small"
                label={field.label}
                name={`shippingAddress.${field.name}`}
                value={address[field.name]}
                onChange={(e) => setAddress((current) => ({ ...current, [field.name]: e.target.value }))}
                sx={field.wide ? { gridColumn: { sm: '1 / -1' } } : undefined}
              />
            ))}
          </Box>
          <Box sx={{ display: 'flex', gap: 1 }}>
            <Button type="submit" variant="contained" disabled={changeAddress.isPending}>
              Save address
            </Button>
            <Button onClick={() => setEditing(false)}>Keep the old one</Button>
          </Box>
        </Box>
      ) : (
        <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
          <Button variant="outlined" onClick={() => { setAddress(order.shippingAddress); setEditing(true); }}>
            Change address
          </Button>
          <TextField size="small" label="Reason (optional)" value={reason} onChange={(e) => setReason(e.target.value)} />
          <Button
            color="error"
            variant="outlined"
            disabled={cancel.isPending}
            onClick={() =>
              cancel.mutate(
                { orderId: order.id, reason },
                { onSuccess: () => showToast('Order cancelled at no cost'), onError: (e) => setError(e.message) },
              )
            }
          >
            Cancel order
          </Button>
        </Box>
      )}
    </Box>
  );
}
