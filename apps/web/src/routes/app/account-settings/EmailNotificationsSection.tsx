import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import FormControlLabel from '@mui/material/FormControlLabel';
import Skeleton from '@mui/material/Skeleton';
import Switch from '@mui/material/Switch';
import Typography from '@mui/material/Typography';
import { EMAIL_TEMPLATE_TYPES, EMAIL_TYPE_INFO, type EmailTemplateType } from '@layerline/contracts';
import { useNotificationPreferences, useUpdateNotificationPreferences } from '../../../api/notifications.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { SettingsSection } from './SettingsSection.tsx';

/** The emails a seller gets: a switch per kind, saved together. */
export function EmailNotificationsSection() {
  const preferences = useNotificationPreferences();
  const update = useUpdateNotificationPreferences();
  const { showToast } = useToast();
  // The seller's unsaved choice; null while it matches what is saved.
  const [draft, setDraft] = useState<EmailTemplateType[] | null>(null);
  const disabled = draft ?? preferences.data?.disabled ?? [];

  const toggle = (type: EmailTemplateType, on: boolean) =>
    setDraft(on ? disabled.filter((t) => t !== type) : [...disabled, type]);
  const turnedOffActionNeeded = disabled.filter((type) => EMAIL_TYPE_INFO[type].actionNeeded);

  return (
    <Box id="email-notifications">
      <SettingsSection
        title="Email notifications"
        description="Choose which emails Layerline sends you. Every email also has a link to turn its kind off."
        submitLabel="Save email settings"
        busy={update.isPending || preferences.isPending}
        testId="email-notifications-section"
        onSubmit={() =>
          update.mutate(disabled, {
            onSuccess: () => {
              setDraft(null);
              showToast('Email settings saved', 'success');
            },
          })
        }
      >
        {preferences.isError ? <Alert severity="error">{preferences.error.message}</Alert> : null}
        {update.isError ? (
          <Alert severity="error" sx={{ mb: 2 }}>
            {update.error.message}
          </Alert>
        ) : null}
        {preferences.isPending ? <Skeleton variant="rounded" height={240} /> : null}
        {preferences.data ? (
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1 }}>
            {EMAIL_TEMPLATE_TYPES.map((type) => {
              const info = EMAIL_TYPE_INFO[type];
              return (
                <FormControlLabel
                  key={type}
                  sx={{ alignItems: 'flex-start', m: 0, gap: 1 }}
                  control={
                    <Switch
                      checked={!disabled.includes(type)}
                      onChange={(event) => toggle(type, event.target.checked)}
                      slotProps={{ input: { 'aria-describedby': `email-type-${type}` } }}
                    />
                  }
                  label={
                    <Box sx={{ pt: 1 }}>
                      <Typography variant="body2" sx={{ fontWeight: 600 }}>
                        {info.label}
                        {info.actionNeeded ? (
                          <Typography component="span" variant="caption" color="warning.main" sx={{ ml: 1 }}>
                            action needed
                          </Typography>
                        ) : null}
                      </Typography>
                      <Typography id={`email-type-${type}`} variant="caption" color="text.secondary">
                        {info.description}
                      </Typography>
                    </Box>
                  }
                />
              );
            })}
          </Box>
        ) : null}
        {turnedOffActionNeeded.length > 0 ? (
          <Alert severity="warning" sx={{ mt: 2 }}>
            With {turnedOffActionNeeded.map((type) => EMAIL_TYPE_INFO[type].label.toLowerCase()).join(', ')} emails off,
            orders that wait for you are shown only on your Orders page.
          </Alert>
        ) : null}
      </SettingsSection>
    </Box>
  );
}
