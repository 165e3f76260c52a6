import { useEffect, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Link from '@mui/material/Link';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { PLATFORM_LABELS, type Platform, type ShopConnection } from '@layerline/contracts';
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
import { API_REFERENCE_URL } from './order-api/api-reference.ts';
import { OrderApiPanel } from './order-api/OrderApiPanel.tsx';

const DESCRIPTIONS: Partial<Record<Platform, string>> = {
  sandbox:
    'A simulated marketplace with listings and realistic orders. Try Layerline end to end without a real shop.',
  etsy: 'Import your listings and receive receipts; tracking goes back to Etsy when we ship.',
  shopify: 'Import products by SKU; orders arrive by webhook; fulfilments carry tracking.',
};
const COMING_SOON: Platform[] = ['woocommerce', 'ebay', 'amazon', 'walmart', 'tiktok'];

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

/** §2 /connect-store (beta): connect marketplaces, the sandbox shop and the order API. */
export default function ConnectStorePage() {
  const { showToast } = useToast();
  const [params, setParams] = useSearchParams();
  const platforms = useShopPlatforms();
  const shops = useShops();
  const connect = useConnectShop();
  const [shopifyOpen, setShopifyOpen] = useState(false);
  const [shopHost, setShopHost] = useState('');

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

  async function start(platform: Platform, host?: string) {
    try {
      const result = await connect.mutateAsync({ platform, ...(host ? { shopHost: host } : {}) });
      if (result.authorizeUrl) {
        window.location.assign(result.authorizeUrl);
        return;
      }
      if (result.shop)
        showToast(`${result.shop.name} connected: ${result.shop.listingCount} listings imported`, 'success');
    } catch (error) {
      showToast((error as Error).message, 'error');
    }
  }

  const cards: Platform[] = ['sandbox', 'etsy', 'shopify'];

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
            <ConnectedShopCard key={shop.id} shop={shop} />
          ))}
        </Stack>
      )}

      <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
        Add a shop
      </Typography>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' }, mb: 3 }}>
        {cards.map((platform) => {
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
              </CardContent>
              <CardActions>
                {platforms.isPending ? null : info ? (
                  <Button
                    variant="contained"
                    disabled={connect.isPending}
                    onClick={() => (platform === 'shopify' ? setShopifyOpen(true) : void start(platform))}
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

      <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
        Coming soon
      </Typography>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
        {COMING_SOON.map((platform) => (
          <Chip key={platform} label={`${PLATFORM_LABELS[platform]} — coming soon`} variant="outlined" />
        ))}
      </Stack>

      <Dialog open={shopifyOpen} onClose={() => setShopifyOpen(false)} fullWidth maxWidth="xs">
        <DialogTitle>Connect Shopify</DialogTitle>
        <DialogContent>
          <TextField
            autoFocus
            fullWidth
            margin="dense"
            label="Store domain"
            placeholder="my-store.myshopify.com"
            value={shopHost}
            onChange={(event) => setShopHost(event.target.value)}
            helperText="The address of your store's admin, ending in .myshopify.com"
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setShopifyOpen(false)}>Cancel</Button>
          <Button
            variant="contained"
            disabled={!/^[a-z0-9][a-z0-9-]*\.myshopify\.com$/i.test(shopHost.trim()) || connect.isPending}
            onClick={() => void start('shopify', shopHost.trim().toLowerCase())}
          >
            Continue to Shopify
          </Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
}

function ConnectedShopCard({ shop }: { shop: ShopConnection }) {
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
