import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormControlLabel from '@mui/material/FormControlLabel';
import Switch from '@mui/material/Switch';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { CheckoutRatesPreview, CheckoutRatesSettings } from '@layerline/contracts';
import { useCheckoutRates, usePreviewCheckoutRates, useSetCheckoutRates } from '../../../api/checkout-rates.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';

const dollars = (cents: number, currency: string) => `${(cents / 100).toFixed(2)} ${currency}`;

/**
 * Checkout rates (docs/checkout-rates.md): per Shopify shop, Layerline answers Shopify's checkout
 * with what shipping will cost, from the seller's shipping profile. A switch per shop, and a preview.
 */
export function CheckoutRatesPanel() {
  const rates = useCheckoutRates();
  if (rates.isPending) return null;
  const shops = rates.data?.items ?? [];
  if (shops.length === 0)
    return (
      <Typography variant="body2" color="text.secondary" data-testid="checkout-rates-none">
        Connect a Shopify store to offer its buyers your shipping rates at checkout.
      </Typography>
    );
  return (
    <Box sx={{ display: 'grid', gap: 3 }} data-testid="checkout-rates">
      {shops.map((shop) => (
        <ShopCheckoutRates key={shop.shopId} shop={shop} />
      ))}
    </Box>
  );
}

function ShopCheckoutRates({ shop }: { shop: CheckoutRatesSettings }) {
  const { showToast } = useToast();
  const set = useSetCheckoutRates();
  const preview = usePreviewCheckoutRates();
  const [sku, setSku] = useState('');
  const [quantity, setQuantity] = useState('1');
  const [country, setCountry] = useState('US');
  const [postalCode, setPostalCode] = useState('');
  const [answer, setAnswer] = useState<CheckoutRatesPreview | null>(null);
  const [error, setError] = useState('');

  function tryIt() {
    setError('');
    preview.mutate(
      { shopId: shop.shopId, destination: { country: country.trim().toUpperCase(), postalCode, region: '', city: '' }, items: [{ sku: sku.trim(), quantity: Number(quantity) }] },
      { onSuccess: setAnswer, onError: (e) => setError(e.message) },
    );
  }

  return (
    <Box component="section" aria-label={`Checkout rates of ${shop.shopName}`}>
      <FormControlLabel
        control={
          <Switch
            checked={shop.enabled}
            disabled={set.isPending}
            onChange={(e) =>
              set.mutate(
                { shopId: shop.shopId, enabled: e.target.checked },
                {
                  onSuccess: (saved) =>
                    saved.lastError ? showToast(saved.lastError, 'error') : showToast(saved.enabled ? 'Checkout rates on' : 'Checkout rates off'),
                  onError: (err) => showToast(err.message, 'error'),
                },
              )
            }
          />
        }
        label={`${shop.shopName}: shipping rates at checkout`}
      />
      {shop.lastError ? (
        <Alert severity="error" sx={{ my: 1 }}>
          {shop.lastError}
        </Alert>
      ) : null}
      {shop.enabled && shop.callbackUrl ? (
        <Typography variant="body2" color="text.secondary" sx={{ wordBreak: 'break-all' }} data-testid="checkout-rates-registered">
          Shopify asks Layerline for rates at checkout (carrier service {shop.carrierServiceId}).
        </Typography>
      ) : null}
      <Box component="form" aria-label="Preview checkout rates" noValidate onSubmit={(e) => { e.preventDefault(); tryIt(); }} sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mt: 1 }}>
        <TextField size="small" label="SKU" value={sku} onChange={(e) => setSku(e.target.value)} />
        <TextField size="small" label="Quantity" type="number" value={quantity} onChange={(e) => setQuantity(e.target.value)} sx={{ width: 100 }} />
        <TextField size="small" label="Country" value={country} onChange={(e) => setCountry(e.target.value)} sx={{ width: 90 }} />
        <TextField size="small" label="Postal code" value={postalCode} onChange={(e) => setPostalCode(e.target.value)} sx={{ width: 130 }} />
        <Button type="submit" variant="outlined" disabled={preview.isPending || !sku.trim() || !postalCode.trim()}>
          Preview rates
        </Button>
      </Box>
      {error ? <Alert severity="error" sx={{ mt: 1 }}>{error}</Alert> : null}
      {answer ? (
        answer.rates.length === 0 ? (
          <Alert severity="info" sx={{ mt: 1 }}>
            No rates: {answer.reason}
          </Alert>
        ) : (
          <Table size="small" aria-label="Previewed rates" sx={{ mt: 1 }}>
            <TableHead>
              <TableRow>
                <TableCell>Service</TableCell>
                <TableCell>Buyer sees</TableCell>
                <TableCell>Delivery</TableCell>
                <TableCell align="right">Price</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {answer.rates.map((rate) => (
                <TableRow key={rate.serviceCode}>
                  <TableCell>{rate.serviceName}</TableCell>
                  <TableCell>{rate.description}</TableCell>
                  <TableCell>{rate.minDeliveryDate ? `${rate.minDeliveryDate} – ${rate.maxDeliveryDate}` : '—'}</TableCell>
                  <TableCell align="right">{dollars(rate.totalCents, rate.currency)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )
      ) : null}
      {answer ? (
        <Typography variant="caption" color="text.secondary">
          Answered in {answer.elapsedMs} ms (Shopify waits at most 3 s).
        </Typography>
      ) : null}
    </Box>
  );
}
