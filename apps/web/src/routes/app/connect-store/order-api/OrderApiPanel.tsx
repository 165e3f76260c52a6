import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { ApiKeysCard } from './ApiKeysCard.tsx';
import { ORDER_API_CALLS_URL } from './api-reference.ts';
import { WebhookEndpointCard } from './WebhookEndpointCard.tsx';

function curlExample(origin: string): string {
  return [
    `curl -X POST ${origin}/api/v1/orders \\`,
    `  -H "Authorization: Bearer ll_live_YOUR_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{`,
    `    "externalId": "1001",`,
    `    "items": [{ "sku": "YOUR-SKU", "quantity": 1 }],`,
    `    "shippingAddress": {`,
    `      "name": "Ada Buyer", "line1": "1 Main St", "city": "Springfield",`,
    `      "region": "IL", "postalCode": "62701", "country": "US"`,
    `    }`,
    `  }'`,
  ].join('\n');
}

/**
 * The custom API option of /connect-store: keys for the seller's own order API, the webhook
 * endpoint for status changes, and how to send an order.
 */
export function OrderApiPanel() {
  const origin = typeof window === 'undefined' ? '' : window.location.origin;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 3 }} data-testid="order-api-panel">
      <ApiKeysCard />
      <WebhookEndpointCard />
      <Card component="section" aria-label="Sending an order">
        <CardContent sx={{ p: { xs: 2.5, sm: 3 } }}>
          <Typography variant="h6" component="h2">
            Sending an order
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
            POST each order once with your own order number as <code>externalId</code>. Sending the same
            number again is safe: you get the same order back (200 instead of 201). Items are matched to your
            products by SKU.
          </Typography>
          <Box
            component="pre"
            sx={{ m: 0, p: 2, borderRadius: 1, bgcolor: 'action.hover', overflowX: 'auto', fontSize: 13 }}
          >
            {curlExample(origin)}
          </Box>
          <Typography variant="body2" sx={{ mt: 1.5 }}>
            Every endpoint, field and webhook, with examples and how to check a webhook’s signature, is in the{' '}
            <Link href={ORDER_API_CALLS_URL} target="_blank" rel="noreferrer">
              API reference
            </Link>
            .
          </Typography>
        </CardContent>
      </Card>
    </Box>
  );
}
