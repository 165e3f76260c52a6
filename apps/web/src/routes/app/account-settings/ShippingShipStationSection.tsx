import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import MenuItem from '@mui/material/MenuItem';
import Skeleton from '@mui/material/Skeleton';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { storeShipStationKeysInputSchema, type ShipStationApiVersion, type ShipStationKeys } from '@layerline/contracts';
import {
  useRemoveShipStationKeys,
  useShipStationKeys,
  useShippingSettings,
  useStoreShipStationKeys,
} from '../../../api/shipping.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { firstErrorPerField } from '../../../components/field-errors.ts';
import { SettingsSection } from './SettingsSection.tsx';

type Field = 'apiKey' | 'apiSecret';

const VERSION_LABELS: Record<ShipStationApiVersion, string> = {
  v1: 'Classic API (v1): API key and secret',
  v2: 'ShipStation API (v2): API key only',
};

function savedKeysText(keys: ShipStationKeys): string {
  const version = keys.apiVersion ? ` (${keys.apiVersion === 'v2' ? 'v2 API' : 'classic API'})` : '';
  const secret = keys.apiSecretLast4 ? `, secret …${keys.apiSecretLast4}` : '';
  return `Keys saved: …${keys.apiKeyLast4 ?? '????'}${secret}${version}`;
}

/** The seller's ShipStation API keys: checked with ShipStation when saved; only their last 4 characters come back. */
export function ShippingShipStationSection() {
  const keys = useShipStationKeys();
  const settings = useShippingSettings();
  const store = useStoreShipStationKeys();
  const remove = useRemoveShipStationKeys();
  const { showToast } = useToast();
  const [apiVersion, setApiVersion] = useState<ShipStationApiVersion>('v1');
  const [apiKey, setApiKey] = useState('');
  const [apiSecret, setApiSecret] = useState('');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [confirmingRemove, setConfirmingRemove] = useState(false);

  function save() {
    const parsed = storeShipStationKeysInputSchema.safeParse({
      apiKey,
      apiSecret: apiVersion === 'v2' ? '' : apiSecret,
      apiVersion,
    });
    setRefusal(null);
    if (!parsed.success) {
      setErrors(firstErrorPerField(parsed.error, ['apiKey', 'apiSecret'] as const));
      return;
    }
    setErrors({});
    store.mutate(parsed.data, {
      onSuccess: (saved) => {
        setApiKey('');
        setApiSecret('');
        showToast(`ShipStation keys saved (…${saved.apiKeyLast4 ?? ''})`);
      },
      // ShipStation refused them (or did not answer): the server stored nothing; say why in the form.
      onError: (error) => setRefusal(error.message),
    });
  }

  const saved = keys.data?.configured ? keys.data : null;

  return (
    <SettingsSection
      title="ShipStation"
      description="Buy labels on your own ShipStation account. Find the keys in ShipStation under Settings → Account → API Settings."
      submitLabel={saved ? 'Replace keys' : 'Save keys'}
      busy={store.isPending}
      onSubmit={save}
      testId="shipstation-section"
    >
      {keys.isPending ? <Skeleton variant="text" width={240} sx={{ mb: 2 }} /> : null}
      {keys.error ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          {keys.error.message}
        </Alert>
      ) : null}
      {keys.data ? (
        <Box
          sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', mb: 2 }}
          data-testid="shipstation-saved-keys"
        >
          <Typography variant="body2" sx={{ flex: '1 1 240px' }}>
            {saved ? savedKeysText(saved) : 'No ShipStation keys saved.'}
          </Typography>
          {saved ? (
            <Button color="error" onClick={() => setConfirmingRemove(true)}>
              Remove keys
            </Button>
          ) : null}
        </Box>
      ) : null}
      {saved && settings.data?.shipStationWebhookUrl ? (
        <Alert severity="info" sx={{ mb: 2 }} data-testid="shipstation-webhook-url">
          For tracking updates as they happen, add this webhook in ShipStation (Settings → Integrations →
          Webhooks, “On Items Shipped”):{' '}
          <Box component="code" sx={{ wordBreak: 'break-all' }}>
            {settings.data.shipStationWebhookUrl}
          </Box>
        </Alert>
      ) : null}
      {refusal ? (
        <Alert severity="error" sx={{ mb: 2 }} data-testid="shipstation-refusal">
          {/[.!?]$/.test(refusal) ? refusal : `${refusal}.`} Nothing was saved.
        </Alert>
      ) : null}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
        <TextField
          select
          label="API version"
          value={apiVersion}
          onChange={(event) => setApiVersion(event.target.value as ShipStationApiVersion)}
          sx={{ gridColumn: { sm: '1 / -1' } }}
        >
          {(Object.keys(VERSION_LABELS) as ShipStationApiVersion[]).map((version) => (
            <MenuItem key={version} value={version}>
              {VERSION_LABELS[version]}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          label="API key"
          name="shipstation-api-key"
          type="password"
          autoComplete="off"
          value={apiKey}
          onChange={(event) => setApiKey(event.target.value)}
          error={Boolean(errors.apiKey)}
          helperText={errors.apiKey}
          sx={apiVersion === 'v2' ? { gridColumn: { sm: '1 / -1' } } : undefined}
        />
        {apiVersion === 'v1' ? (
          <TextField
            label="API secret"
            name="shipstation-api-secret"
            type="password"
            autoComplete="off"
            value={apiSecret}
            onChange={(event) => setApiSecret(event.target.value)}
            error={Boolean(errors.apiSecret)}
            helperText={errors.apiSecret}
          />
        ) : null}
      </Box>
      <ConfirmDialog
        open={confirmingRemove}
        title="Remove your ShipStation keys?"
        confirmLabel="Remove"
        busy={remove.isPending}
        onConfirm={() =>
          remove.mutate(undefined, {
            onSuccess: () => showToast('ShipStation keys removed'),
            onError: (error) => showToast(error.message, 'error'),
            onSettled: () => setConfirmingRemove(false),
          })
        }
        onCancel={() => setConfirmingRemove(false)}
      >
        Layerline forgets the keys. If ShipStation buys your labels, choose another integration above.
      </ConfirmDialog>
    </SettingsSection>
  );
}
