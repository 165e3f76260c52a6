import { useState } from 'react';
import TextField from '@mui/material/TextField';
import { CHANGE_WINDOW_MAX_HOURS, orderSettingsSchema } from '@layerline/contracts';
import { useOrderSettings, useSaveOrderSettings } from '../../../api/orders.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { SettingsSection } from './SettingsSection.tsx';

/** The change window (docs/change-window.md): how long new orders wait before release, for the seller to review them. */
export function ChangeWindowSection() {
  const settings = useOrderSettings();
  // The form starts from the saved hours, so it waits for them.
  return settings.data ? <ChangeWindowForm savedHours={settings.data.changeWindowHours} /> : null;
}

function ChangeWindowForm({ savedHours }: { savedHours: number }) {
  const { showToast } = useToast();
  const save = useSaveOrderSettings();
  const [hours, setHours] = useState(String(savedHours));
  const [error, setError] = useState('');

  function submit() {
    const parsed = orderSettingsSchema.safeParse({ changeWindowHours: Number(hours) });
    if (!parsed.success || hours.trim() === '') {
      setError(parsed.success ? 'Enter a number of hours' : (parsed.error.issues[0]?.message ?? 'Check the hours'));
      return;
    }
    setError('');
    save.mutate(parsed.data, {
      onSuccess: (saved) => showToast(saved.changeWindowHours === 0 ? 'New orders are released at once' : `New orders wait ${saved.changeWindowHours} h before release`),
      onError: (e) => setError(e.message),
    });
  }

  return (
    <SettingsSection
      title="Change window"
      description="How long new orders wait before they are released to production. Until then you can change an order’s shipping address or cancel it at no cost, on its page or through the order API. 0 releases orders at once."
      submitLabel="Save change window"
      busy={save.isPending}
      onSubmit={submit}
      testId="change-window-section"
    >
      <TextField
        label="Hours before release"
        name="changeWindowHours"
        type="number"
        value={hours}
        onChange={(e) => setHours(e.target.value)}
        slotProps={{ htmlInput: { min: 0, max: CHANGE_WINDOW_MAX_HOURS, step: 1 } }}
        error={Boolean(error)}
        helperText={error || `0 to ${CHANGE_WINDOW_MAX_HOURS} hours`}
      />
    </SettingsSection>
  );
}
