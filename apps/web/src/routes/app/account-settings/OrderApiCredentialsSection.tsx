import { useState } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Typography from '@mui/material/Typography';
import { useApiKeys, useRemoveWebhookEndpoint, useWebhookEndpoint } from '../../../api/order-api.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { ApiKeysCard } from '../connect-store/order-api/ApiKeysCard.tsx';

/**
 * For a seller who is not (or no longer) in the beta: the order API credentials they still hold,
 * to see and revoke. /connect-store is for beta testers, so this is where a seller taken out of
 * the beta finds their keys and webhook endpoint. Shown only when there is something to show.
 */
export function OrderApiCredentialsSection() {
  const keys = useApiKeys();
  const endpoint = useWebhookEndpoint();
  const hasKeys = (keys.data ?? []).length > 0;
  const hasEndpoint = Boolean(endpoint.data);
  if (!hasKeys && !hasEndpoint) return null;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 3 }} data-testid="order-api-credentials">
      {hasKeys ? <ApiKeysCard allowCreate={false} /> : null}
      {endpoint.data ? <WebhookEndpointSummary url={endpoint.data.url} /> : null}
    </Box>
  );
}

function WebhookEndpointSummary({ url }: { url: string }) {
  const { showToast } = useToast();
  const remove = useRemoveWebhookEndpoint();
  const [confirming, setConfirming] = useState(false);
  return (
    <Card component="section" aria-label="Webhooks" data-testid="webhook-endpoint-summary">
      <CardContent sx={{ p: { xs: 2.5, sm: 3 } }}>
        <Typography variant="h6" component="h2">
          Webhooks
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          Order status changes are sent to this URL. Remove it to stop them.
        </Typography>
        <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography sx={{ fontFamily: 'monospace', wordBreak: 'break-all', flex: '1 1 240px' }}>{url}</Typography>
          <Button color="error" onClick={() => setConfirming(true)}>
            Remove
          </Button>
        </Box>
      </CardContent>
      <ConfirmDialog
        open={confirming}
        title="Stop sending webhooks?"
        confirmLabel="Remove"
        busy={remove.isPending}
        onConfirm={() =>
          remove.mutate(undefined, {
            onSuccess: () => showToast('Webhooks turned off'),
            onError: (error) => showToast(error.message, 'error'),
            onSettled: () => setConfirming(false),
          })
        }
        onCancel={() => setConfirming(false)}
      >
        Layerline will no longer send order status changes to {url}.
      </ConfirmDialog>
    </Card>
  );
}
