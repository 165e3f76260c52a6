import { useEffect, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import MenuItem from '@mui/material/MenuItem';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  IMPERSONATED_PLATFORMS,
  PLATFORM_LABELS,
  type ImpersonatedPlatform,
  type Platform,
  type ShopConnectInput,
  type ShopConnection,
} from '@layerline/contracts';
import {
  useConnectShop,
  useDisconnectShop,
  useShopPlatforms,
  useShops,
  useSimulateOrder,
  useSyncShop,
} from '../../../api/shops.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { CheckoutRatesPanel } from './CheckoutRatesPanel.tsx';
import { ConnectMarketplaceDialog } from './ConnectMarketplaceDialog.tsx';
import { API_REFERENCE_URL } from './order-api/api-reference.ts';
import { OrderApiPanel } from './order-api/OrderApiPanel.tsx';

const DESCRIPTIONS: Partial<Record<Platform, string>> = {
  sandbox:
    'A simulated marketplace with listings and realistic orders. Try Layerline end to end without a real shop.',
  etsy: 'Import your listings and receive receipts; tracking goes back to Etsy when we ship.',
  shopify: 'Import products by SKU; orders arrive by webhook; fulfilments carry tracking.',
  woocommerce:
    'Your own WordPress store: products and variations by SKU, orders by webhook, tracking as an order note.',
  ebay: 'Inventory by SKU; orders from the Fulfillment API; tracking goes back as a shipping fulfilment.',
  amazon:
    'Seller Central listings by SKU; orders from the Selling Partner API; shipments confirmed with tracking.',
  walmart: 'Marketplace items by SKU; new orders acknowledged for you; lines shipped with tracking.',
  tiktok: 'Products by seller SKU; orders by webhook and poll; packages shipped with tracking.',
};
const MARKETPLACES: Platform[] = [
  'sandbox',
  'etsy',
  'shopify',
  'woocommerce',
  'ebay',
  'amazon',
  'walmart',
  'tiktok',
];

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

/** §2 /connect-store (beta): connect marketplaces, the sandbox shop and the order API. */
export default function ConnectStorePage() {
  const { showToast } = useToast();
  const [params, setParams] = useSearchParams();
  const platforms = useShopPlatforms();
  const shops = useShops();
  const connect = useConnectShop();
  const [asking, setAsking] = useState<Platform | null>(null);
  const [impersonate, setImpersonate] = useState<ImpersonatedPlatform | ''>('');

  // Back from a marketplace's approval page: say how it went once, then drop the parameter.
  useEffect(() => {
    const connected = params.get('connected');
    const error = params.get('error');
    if (!connected && !error) return;
    if (connected) showToast(`${PLATFORM_LABELS[connected as Platform] ?? connected} connected`, 'success');
    if (error) showToast(error, 'error', 8000);
    setParams({}, { replace: true });
  }, [params, setParams, showToast]);

  const available = new Map((platforms.data?.platforms ?? []).map((p) => [p.platform, p]));

  async function start(platform: Platform, input: ShopConnectInput = {}) {
    try {
      const result = await connect.mutateAsync({ platform, ...input });
      if (result.authorizeUrl) {
        window.location.assign(result.authorizeUrl);
        return;
      }
      setAsking(null);
      if (result.shop)
        showToast(`${result.shop.name} connected: ${result.shop.listingCount} listings imported`, 'success');
    } catch (error) {
      showToast((error as Error).message, 'error', 8000);
    }
  }

  /** Asks first where the marketplace needs something typed (a store, keys); else straight to its approval page. */
  function begin(platform: Platform) {
    const info = available.get(platform);
    if (platform === 'shopify' || platform === 'woocommerce' || (info?.fields.length ?? 0) > 0)
      setAsking(platform);
    else void start(platform);
  }
  const askingInfo = asking ? available.get(asking) : undefined;

  return (
    <Box>
      <PageHeading
        title="Connect Store"
        subtitle="Link the shops your customers buy from. Orders flow in; tracking flows back."
      />

      <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
        Your shops
      </Typography>
      {shops.isPending ? (
        <Skeleton variant="rounded" height={96} sx={{ mb: 3 }} />
      ) : shops.isError ? (
        <Alert severity="error" sx={{ mb: 3 }}>
          {shops.error.message}
        </Alert>
      ) : shops.data.length === 0 ? (
        <Alert severity="info" sx={{ mb: 3 }}>
          No shop connected yet. Start with the sandbox shop to see how orders arrive.
        </Alert>
      ) : (
        <Stack spacing={2} sx={{ mb: 3 }} data-testid="connected-shops">
          {shops.data.map((shop) => (
            <ConnectedShopCard
              key={shop.id}
              shop={shop}
              onReconnect={
                shop.platform !== 'sandbox' && available.has(shop.platform)
                  ? () => begin(shop.platform)
                  : undefined
              }
            />
          ))}
        </Stack>
      )}

      <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
        Add a shop
      </Typography>
      <Box
        sx={{
          display: 'grid',
          gap: 2,
          gridTemplateColumns: { xs: '1fr', sm: 'repeat(2, 1fr)', lg: 'repeat(4, 1fr)' },
          mb: 3,
        }}
      >
        {MARKETPLACES.map((platform) => {
          const info = available.get(platform);
          return (
            <Card key={platform} variant="outlined" data-testid={`platform-${platform}`}>
              <CardContent>
                <Typography variant="h6" component="h3">
                  {PLATFORM_LABELS[platform]}
                </Typography>
                <Typography variant="body2" color="text.secondary">
                  {DESCRIPTIONS[platform]}
                </Typography>
                {platform === 'sandbox' && info ? (
                  <TextField
                    select
                    fullWidth
                    size="small"
                    sx={{ mt: 1.5 }}
                    label="Orders arrive as"
                    value={impersonate}
                    onChange={(event) => setImpersonate(event.target.value as ImpersonatedPlatform | '')}
                    helperText="Impersonate a marketplace: its order shape, read by its own connector"
                    slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
                  >
                    <MenuItem value="">Sandbox orders</MenuItem>
                    {IMPERSONATED_PLATFORMS.map((p) => (
                      <MenuItem key={p} value={p}>
                        {PLATFORM_LABELS[p]} orders
                      </MenuItem>
                    ))}
                  </TextField>
                ) : null}
              </CardContent>
              <CardActions>
                {platforms.isPending ? null : info ? (
                  <Button
                    variant="contained"
                    disabled={connect.isPending}
                    onClick={() =>
                      platform === 'sandbox'
                        ? void start('sandbox', impersonate ? { impersonate } : {})
                        : begin(platform)
                    }
                  >
                    Connect {platform === 'sandbox' ? 'sandbox shop' : PLATFORM_LABELS[platform]}
                  </Button>
                ) : (
                  <Chip label="Not configured on this server" size="small" />
                )}
              </CardActions>
            </Card>
          );
        })}
      </Box>

      <Card variant="outlined" sx={{ mb: 3 }}>
        <CardContent>
          <Typography variant="h6" component="h2">
            Order API
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            Any other storefront: send orders to Layerline with an API key, and get a signed webhook on every
            status change.{' '}
            <Link href={API_REFERENCE_URL} target="_blank" rel="noreferrer" data-testid="api-reference-link">
              API reference
            </Link>
          </Typography>
          <OrderApiPanel />
        </CardContent>
      </Card>

      <Card variant="outlined" sx={{ mb: 3 }}>
        <CardContent>
          <Typography variant="h6" component="h2">
            Shipping rates at checkout
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            For Shopify stores: buyers see what their parcel will cost, quoted from your shipping profile (its parcels,
            carriers, handling time and delivery promise).
          </Typography>
          <CheckoutRatesPanel />
        </CardContent>
      </Card>

      {asking ? (
        <ConnectMarketplaceDialog
          platform={asking}
          oauth={askingInfo?.oauth ?? false}
          fields={askingInfo?.fields ?? []}
          busy={connect.isPending}
          onClose={() => setAsking(null)}
          onConnect={(input) => void start(asking, input)}
        />
      ) : null}
    </Box>
  );
}

function ConnectedShopCard({
  shop,
  onReconnect,
}: {
  shop: ShopConnection;
  onReconnect: (() => void) | undefined;
}) {
  const { showToast } = useToast();
  const sync = useSyncShop();
  const disconnect = useDisconnectShop();
  const simulate = useSimulateOrder();
  const [confirming, setConfirming] = useState(false);

  return (
    <Card variant="outlined" data-testid="connected-shop">
      <CardContent>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }} useFlexGap>
          <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
            {shop.name}
          </Typography>
          <Chip size="small" label={PLATFORM_LABELS[shop.platform]} />
          <Chip
            size="small"
            color={shop.status === 'connected' ? 'success' : 'error'}
            label={shop.status === 'connected' ? 'Connected' : 'Needs attention'}
          />
        </Stack>
        <Typography variant="body2" color="text.secondary">
          {shop.listingCount} listings · last synced {when(shop.lastSyncedAt)}
        </Typography>
        {shop.statusMessage ? (
          <Alert severity="error" sx={{ mt: 1 }}>
            {shop.statusMessage}
          </Alert>
        ) : null}
      </CardContent>
      <CardActions sx={{ flexWrap: 'wrap' }}>
        <Button
          disabled={sync.isPending}
          onClick={() =>
            sync.mutate(shop.id, {
              onSuccess: (r) =>
                showToast(`Synced: ${r.listings} listings, ${r.ordersCreated} new orders`, 'success'),
              onError: (e) => showToast(e.message, 'error'),
            })
          }
        >
          {sync.isPending ? 'Syncing…' : 'Sync now'}
        </Button>
        {shop.platform === 'sandbox' ? (
          <Button
            disabled={simulate.isPending}
            onClick={() =>
              simulate.mutate(
                { shopId: shop.id },
                {
                  onSuccess: () => showToast('A new order arrived from the sandbox shop', 'success'),
                  onError: (e) => showToast(e.message, 'error'),
                },
              )
            }
          >
            Simulate an order
          </Button>
        ) : null}
        {shop.status === 'error' && onReconnect ? (
          <Button variant="contained" onClick={onReconnect}>
            Reconnect
          </Button>
        ) : null}
        <Button component={RouterLink} to="/link-listings">
          Link listings
        </Button>
        <Button color="error" onClick={() => setConfirming(true)}>
          Disconnect
        </Button>
      </CardActions>
      <ConfirmDialog
        open={confirming}
        title={`Disconnect ${shop.name}?`}
        confirmLabel="Disconnect"
        busy={disconnect.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          disconnect.mutate(shop.id, {
            onSuccess: () => {
              setConfirming(false);
              showToast(`${shop.name} disconnected`, 'success');
            },
            onError: (e) => showToast(e.message, 'error'),
          })
        }
      >
        Layerline forgets its access to this shop and its imported listings. Orders already received stay.
      </ConfirmDialog>
    </Card>
  );
}
