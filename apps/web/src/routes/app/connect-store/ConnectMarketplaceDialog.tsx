import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Divider from '@mui/material/Divider';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  PLATFORM_LABELS,
  type ConnectField,
  type Platform,
  type ShopConnectInput,
} from '@layerline/contracts';

const SHOPIFY_HOST = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/i;
const STORE_URL = /^https:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i;

/**
 * What a marketplace asks before it can be connected: Shopify's store domain, a WooCommerce
 * store's address (to approve on its own authorisation page) or its REST keys, or the keys a
 * marketplace connected by pasted credentials needs (Walmart). `onConnect` sends the input.
 */
export function ConnectMarketplaceDialog(props: {
  platform: Platform;
  oauth: boolean;
  fields: readonly ConnectField[];
  busy: boolean;
  onClose: () => void;
  onConnect: (input: ShopConnectInput) => void;
}) {
  const { platform, oauth, fields, busy } = props;
  const label = PLATFORM_LABELS[platform];
  const [host, setHost] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  // WooCommerce's keys belong to the store typed above: that one address serves both ways to connect.
  const storeAbove = platform === 'woocommerce' && oauth;
  const shown = fields.filter((field) => !(storeAbove && field.name === 'storeUrl'));
  const complete =
    fields.length > 0 &&
    shown.every((field) => values[field.name]?.trim()) &&
    (!storeAbove || STORE_URL.test(host.trim()));
  const credentials = {
    ...Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value.trim()])),
    ...(storeAbove ? { storeUrl: host.trim() } : {}),
  };

  return (
    <Dialog open onClose={props.onClose} fullWidth maxWidth="xs" aria-labelledby="connect-marketplace-title">
      <DialogTitle id="connect-marketplace-title">Connect {label}</DialogTitle>
      <DialogContent>
        {platform === 'shopify' ? (
          <TextField
            autoFocus
            fullWidth
            margin="dense"
            label="Store domain"
            placeholder="my-store.myshopify.com"
            value={host}
            onChange={(event) => setHost(event.target.value)}
            helperText="The address of your store's admin, ending in .myshopify.com"
          />
        ) : null}
        {platform === 'woocommerce' && oauth ? (
          <>
            <TextField
              autoFocus
              fullWidth
              margin="dense"
              label="Store address"
              placeholder="https://shop.example.com"
              value={host}
              onChange={(event) => setHost(event.target.value)}
              helperText="You approve Layerline on your store's own page; it sends us REST API keys."
            />
            <Button
              sx={{ mt: 1 }}
              variant="contained"
              disabled={!STORE_URL.test(host.trim()) || busy}
              onClick={() => props.onConnect({ storeUrl: host.trim() })}
            >
              Continue to your store
            </Button>
            <Divider sx={{ my: 2 }}>or paste REST API keys</Divider>
          </>
        ) : null}
        {fields.length > 0 ? (
          <>
            {platform !== 'woocommerce' ? (
              <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
                Layerline checks these with {label} before saving them; they are stored encrypted.
              </Typography>
            ) : null}
            {shown.map((field, index) => (
              <TextField
                key={field.name}
                autoFocus={index === 0 && platform !== 'woocommerce'}
                fullWidth
                margin="dense"
                label={field.label}
                type={field.secret ? 'password' : 'text'}
                autoComplete="off"
                placeholder={field.placeholder}
                helperText={field.help}
                value={values[field.name] ?? ''}
                onChange={(event) =>
                  setValues((current) => ({ ...current, [field.name]: event.target.value }))
                }
              />
            ))}
          </>
        ) : null}
        {platform !== 'shopify' && !oauth && fields.length === 0 ? (
          <Alert severity="info">{label} needs nothing more: continue to approve access.</Alert>
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onClose}>Cancel</Button>
        {platform === 'shopify' ? (
          <Button
            variant="contained"
            disabled={!SHOPIFY_HOST.test(host.trim()) || busy}
            onClick={() => props.onConnect({ shopHost: host.trim().toLowerCase() })}
          >
            Continue to Shopify
          </Button>
        ) : fields.length > 0 ? (
          <Button
            variant="contained"
            disabled={!complete || busy}
            onClick={() => props.onConnect({ credentials })}
          >
            {busy ? 'Checking…' : 'Connect with these keys'}
          </Button>
        ) : null}
      </DialogActions>
    </Dialog>
  );
}
