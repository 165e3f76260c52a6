import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import FormControlLabel from '@mui/material/FormControlLabel';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import {
  SHIPPING_INTEGRATION_LABELS,
  SHIPPING_INTEGRATIONS,
  type ShippingIntegration,
  type ShippingSettings,
} from '@layerline/contracts';
import { useSetShippingIntegration, useShippingSettings } from '../../../api/shipping.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { SettingsSection } from './SettingsSection.tsx';
import { ShippingShipStationSection } from './ShippingShipStationSection.tsx';
import { ShippingShippoSection } from './ShippingShippoSection.tsx';

/** Why an integration cannot buy labels yet (null: it can). */
function unavailableReason(integration: ShippingIntegration, settings: ShippingSettings): string | null {
  if (integration === 'sandbox' && !settings.sandboxAvailable) return 'The sandbox carrier is turned off on this server.';
  if (integration === 'shipstation' && !settings.shipStation.configured) {
    return 'Save your ShipStation keys below first.';
  }
  if (integration === 'shippo') {
    if (!settings.shippo.available) return 'Shippo is not configured on this server.';
    if (!settings.shippo.connected) return 'Connect your Shippo account below first.';
  }
  return null;
}

const DESCRIPTIONS: Record<ShippingIntegration, string> = {
  sandbox: 'Test labels from the built-in sandbox carrier: nothing is paid and nothing is sent.',
  shipstation: 'Labels are bought on your own ShipStation account, at your ShipStation rates.',
  shippo: 'Labels are bought on your own Shippo account, at your Shippo rates.',
};

/**
 * Account settings → Shipping: which integration buys this seller's labels, the shipping profile
 * (delivery promise) that applies to them, and their ShipStation and Shippo accounts.
 */
export function ShippingSection() {
  return (
    <>
      <ShippingIntegrationSection />
      <ShippingShipStationSection />
      <ShippingShippoSection />
    </>
  );
}

function ShippingIntegrationSection() {
  const settings = useShippingSettings();
  const setIntegration = useSetShippingIntegration();
  const { showToast } = useToast();
  const [choice, setChoice] = useState<ShippingIntegration | null>(null);
  const data = settings.data;
  const selected = choice ?? data?.integration ?? 'sandbox';

  function save() {
    if (!data) return;
    setIntegration.mutate(
      { integration: selected },
      {
        onSuccess: (saved) => {
          setChoice(null);
          showToast(`Labels are now bought with ${SHIPPING_INTEGRATION_LABELS[saved.integration]}`);
        },
        onError: (error) => showToast(error.message, 'error'),
      },
    );
  }

  return (
    <SettingsSection
      title="Shipping"
      description="Who buys the labels for your parcels, and the delivery promise your orders ship with."
      submitLabel="Save integration"
      busy={setIntegration.isPending || !data}
      onSubmit={save}
      testId="shipping-section"
    >
      {settings.isPending ? <Skeleton variant="rounded" height={160} /> : null}
      {settings.error ? <Alert severity="error">{settings.error.message}</Alert> : null}
      {data ? (
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2.5 }}>
          <Box>
            <Typography variant="subtitle2" component="h3" id="shipping-integration-label">
              Labels are bought with
            </Typography>
            <RadioGroup
              aria-labelledby="shipping-integration-label"
              name="shipping-integration"
              value={selected}
              onChange={(event) => setChoice(event.target.value as ShippingIntegration)}
            >
              {SHIPPING_INTEGRATIONS.map((integration) => {
                const reason = unavailableReason(integration, data);
                return (
                  <FormControlLabel
                    key={integration}
                    value={integration}
                    // The current choice stays selectable even if its account went away meanwhile.
                    disabled={reason !== null && integration !== data.integration}
                    control={<Radio />}
                    data-testid={`shipping-integration-${integration}`}
                    sx={{ alignItems: 'flex-start', mt: 0.5 }}
                    label={
                      <Box sx={{ pt: 1 }}>
                        <Typography variant="body2" sx={{ fontWeight: 600 }}>
                          {SHIPPING_INTEGRATION_LABELS[integration]}
                          {integration === data.integration ? ' (current)' : ''}
                        </Typography>
                        <Typography variant="caption" color="text.secondary" component="div">
                          {DESCRIPTIONS[integration]}
                        </Typography>
                        {reason ? (
                          <Typography variant="caption" color="warning.main" component="div">
                            {reason}
                          </Typography>
                        ) : null}
                      </Box>
                    }
                  />
                );
              })}
            </RadioGroup>
          </Box>
          <Box data-testid="shipping-profile">
            <Typography variant="subtitle2" component="h3">
              Shipping profile
            </Typography>
            <Typography variant="body2">
              <strong>{data.profile.name}</strong> · {data.profile.promise}
            </Typography>
            <Typography variant="caption" color="text.secondary">
              Set by Layerline: the parcel sizes, carriers and delivery promise used for your orders. Contact us
              to change it.
            </Typography>
          </Box>
        </Box>
      ) : null}
    </SettingsSection>
  );
}
