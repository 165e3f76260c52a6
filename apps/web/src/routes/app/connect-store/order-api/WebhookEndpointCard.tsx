import { useState, type FormEvent } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Link from '@mui/material/Link';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  useRemoveWebhookEndpoint,
  useRotateWebhookSecret,
  useSetWebhookEndpoint,
  useWebhookEndpoint,
  type WebhookEndpoint,
} from '../../../../api/order-api.ts';
import { useToast } from '../../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../../components/ConfirmDialog.tsx';
import { API_REFERENCE_URL } from './api-reference.ts';
import { SecretReveal } from './SecretReveal.tsx';
import { WebhookDeliveriesList } from './WebhookDeliveriesList.tsx';

/** Where Layerline tells the seller's system about order status changes, and its signing secret. */
export function WebhookEndpointCard() {
  const endpoint = useWebhookEndpoint();
  // Held here, not in the form: the form remounts when the saved URL changes, the secret must stay.
  const [secret, setSecret] = useState<string | null>(null);
  if (endpoint.isPending) {
    return (
      <Card component="section" aria-label="Webhooks">
        <CardContent>Loading your webhook settings…</CardContent>
      </Card>
    );
  }
  if (endpoint.isError) {
    return (
      <Card component="section" aria-label="Webhooks">
        <CardContent>
          <Typography color="error">
            Could not load your webhook settings: {endpoint.error.message}
          </Typography>
        </CardContent>
      </Card>
    );
  }
  // Keyed by the saved URL so the field starts from it again after a save or a removal.
  return (
    <WebhookEndpointForm
      key={endpoint.data?.url ?? ''}
      current={endpoint.data}
      secret={secret}
      setSecret={setSecret}
    />
  );
}

function WebhookEndpointForm({
  current,
  secret,
  setSecret,
}: {
  current: WebhookEndpoint | null;
  secret: string | null;
  setSecret(secret: string | null): void;
}) {
  const { showToast } = useToast();
  const save = useSetWebhookEndpoint();
  const rotate = useRotateWebhookSecret();
  const remove = useRemoveWebhookEndpoint();
  const [url, setUrl] = useState(current?.url ?? '');
  const [urlError, setUrlError] = useState<string | undefined>();
  const [confirm, setConfirm] = useState<'rotate' | 'remove' | null>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = url.trim();
    if (!/^https?:\/\/\S+$/i.test(trimmed)) {
      setUrlError('Enter the full URL, starting with https://');
      return;
    }
    setUrlError(undefined);
    save.mutate(trimmed, {
      onSuccess: (saved) => {
        showToast('Webhook URL saved');
        if (saved?.secret) setSecret(saved.secret);
      },
      onError: (error) => setUrlError(error.message),
    });
  }

  function confirmAction() {
    if (confirm === 'rotate') {
      rotate.mutate(undefined, {
        onSuccess: (rotated) => {
          if (rotated?.secret) setSecret(rotated.secret);
          showToast('New signing secret created; the old one no longer signs deliveries');
        },
        onError: (error) => showToast(error.message, 'error'),
        onSettled: () => setConfirm(null),
      });
    } else if (confirm === 'remove') {
      remove.mutate(undefined, {
        onSuccess: () => {
          setSecret(null);
          showToast('Webhooks turned off');
        },
        onError: (error) => showToast(error.message, 'error'),
        onSettled: () => setConfirm(null),
      });
    }
  }

  return (
    <Card component="section" aria-label="Webhooks" data-testid="webhook-endpoint-card">
      <CardContent sx={{ p: { xs: 2.5, sm: 3 } }}>
        <Typography variant="h6" component="h2">
          Webhooks
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          Every time one of your orders changes status we POST an <code>order.status_changed</code> event to
          this URL, signed with your secret (Standard Webhooks). Failed deliveries are retried 8 times over
          one to two hours; below you see what your receiver answered, and can send an event again. Every
          event and how to verify its signature (with Node.js code) are in the{' '}
          <Link href={API_REFERENCE_URL} target="_blank" rel="noreferrer">
            API reference
          </Link>
          .
        </Typography>

        {secret ? (
          <Box sx={{ mb: 2 }}>
            <SecretReveal
              title="Your signing secret"
              secret={secret}
              testId="webhook-secret"
              onDone={() => setSecret(null)}
            />
          </Box>
        ) : null}

        <Box
          component="form"
          noValidate
          onSubmit={submit}
          sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', flexWrap: 'wrap' }}
        >
          <TextField
            label="Endpoint URL"
            size="small"
            type="url"
            placeholder="https://example.com/webhooks/layerline"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
            error={Boolean(urlError)}
            helperText={
              urlError ??
              (current
                ? `Sending since ${new Date(current.createdAt).toLocaleDateString()}`
                : 'Not set: no webhooks are sent')
            }
            sx={{ flex: '1 1 320px' }}
          />
          <Button type="submit" variant="contained" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : current ? 'Update URL' : 'Save URL'}
          </Button>
        </Box>
        {current ? (
          <Box sx={{ display: 'flex', gap: 1, mt: 2, flexWrap: 'wrap' }}>
            <Button variant="outlined" onClick={() => setConfirm('rotate')}>
              Rotate secret
            </Button>
            <Button color="error" onClick={() => setConfirm('remove')}>
              Remove endpoint
            </Button>
          </Box>
        ) : null}
        {current ? (
          <Box component="section" aria-label="Recent deliveries" sx={{ mt: 3 }}>
            <Typography variant="subtitle1" component="h3" sx={{ mb: 1 }}>
              Recent deliveries
            </Typography>
            <WebhookDeliveriesList />
          </Box>
        ) : null}
      </CardContent>
      <ConfirmDialog
        open={confirm !== null}
        title={confirm === 'rotate' ? 'Create a new signing secret?' : 'Stop sending webhooks?'}
        confirmLabel={confirm === 'rotate' ? 'Rotate secret' : 'Remove endpoint'}
        busy={rotate.isPending || remove.isPending}
        onConfirm={confirmAction}
        onCancel={() => setConfirm(null)}
      >
        {confirm === 'rotate'
          ? 'Deliveries are signed with the new secret at once, so update your receiver right away.'
          : 'No more order events will be sent to this URL. You can set one again at any time.'}
      </ConfirmDialog>
    </Card>
  );
}
