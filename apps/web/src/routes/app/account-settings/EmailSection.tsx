import { useState } from 'react';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { changeEmailSchema, type Me } from '@layerline/contracts';
import { useChangeEmail } from '../../../api/me.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { firstErrorPerField } from '../../../components/field-errors.ts';
import { SettingsSection } from './SettingsSection.tsx';

export function EmailSection({ me }: { me: Me }) {
  const { showToast } = useToast();
  const changeEmail = useChangeEmail();
  const [newEmail, setNewEmail] = useState('');
  const [currentPassword, setCurrentPassword] = useState('');
  const [errors, setErrors] = useState<{ newEmail?: string; currentPassword?: string }>({});

  function save() {
    const parsed = changeEmailSchema.safeParse({ newEmail: newEmail.trim(), currentPassword });
    const found: typeof errors = parsed.success ? {} : firstErrorPerField(parsed.error, ['newEmail', 'currentPassword']);
    if (parsed.success && parsed.data.newEmail.toLowerCase() === me.email.toLowerCase()) {
      found.newEmail = 'This is already your email address';
    }
    setErrors(found);
    if (!parsed.success || found.newEmail) return;
    changeEmail.mutate(parsed.data, {
      onSuccess: (updated) => {
        showToast(`Your email is now ${updated.email}`);
        setNewEmail('');
        setCurrentPassword('');
      },
      onError: (error) => showToast(error.message, 'error'),
    });
  }

  return (
    <SettingsSection
      title="Email"
      description={`You log in with ${me.email}. Changing it needs your current password.`}
      submitLabel="Change email"
      busy={changeEmail.isPending}
      onSubmit={save}
      testId="email-section"
    >
      <Stack spacing={2} direction={{ xs: 'column', sm: 'row' }}>
        <TextField
          label="New email"
          type="email"
          name="newEmail"
          autoComplete="email"
          value={newEmail}
          onChange={(event) => setNewEmail(event.target.value)}
          error={Boolean(errors.newEmail)}
          helperText={errors.newEmail}
        />
        <TextField
          label="Current password"
          type="password"
          name="emailCurrentPassword"
          autoComplete="current-password"
          value={currentPassword}
          onChange={(event) => setCurrentPassword(event.target.value)}
          error={Boolean(errors.currentPassword)}
          helperText={errors.currentPassword}
        />
      </Stack>
    </SettingsSection>
  );
}
