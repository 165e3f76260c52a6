import { useState } from 'react';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { updateAccountSchema, type Me } from '@layerline/contracts';
import { useUpdateAccount } from '../../../api/me.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { firstErrorPerField } from '../../../components/field-errors.ts';
import { SettingsSection } from './SettingsSection.tsx';

export function ProfileSection({ me }: { me: Me }) {
  const { showToast } = useToast();
  const update = useUpdateAccount();
  const [name, setName] = useState(me.name);
  const [businessName, setBusinessName] = useState(me.businessName);
  const [errors, setErrors] = useState<{ name?: string; businessName?: string }>({});

  function save() {
    const parsed = updateAccountSchema.safeParse({ name, businessName });
    if (!parsed.success) {
      setErrors(firstErrorPerField(parsed.error, ['name', 'businessName']));
      return;
    }
    setErrors({});
    update.mutate(parsed.data, {
      onSuccess: () => showToast('Profile saved'),
      onError: (error) => showToast(error.message, 'error'),
    });
  }

  return (
    <SettingsSection
      title="Profile"
      description="How we address you and the business name shown on your orders."
      submitLabel="Save profile"
      busy={update.isPending}
      onSubmit={save}
      testId="profile-section"
    >
      <Stack spacing={2} direction={{ xs: 'column', sm: 'row' }}>
        <TextField
          label="Your name"
          name="name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={Boolean(errors.name)}
          helperText={errors.name}
          required
        />
        <TextField
          label="Business name"
          name="businessName"
          value={businessName}
          onChange={(event) => setBusinessName(event.target.value)}
          error={Boolean(errors.businessName)}
          helperText={errors.businessName}
        />
      </Stack>
    </SettingsSection>
  );
}
