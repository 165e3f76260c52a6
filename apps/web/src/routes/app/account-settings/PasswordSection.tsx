import { useState } from 'react';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useChangePassword } from '../../../api/auth.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import {
  newPasswordError,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from '../../auth/credentials-validation.ts';
import { SettingsSection } from './SettingsSection.tsx';

type Field = 'currentPassword' | 'newPassword' | 'confirmPassword';

export function PasswordSection() {
  const { showToast } = useToast();
  const changePassword = useChangePassword();
  const [values, setValues] = useState<Record<Field, string>>({
    currentPassword: '',
    newPassword: '',
    confirmPassword: '',
  });
  const [revokeOtherSessions, setRevokeOtherSessions] = useState(true);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});

  const field = (name: Field) => ({
    name,
    type: 'password',
    value: values[name],
    error: Boolean(errors[name]),
    helperText: errors[name],
    onChange: (event: { target: { value: string } }) =>
      setValues((current) => ({ ...current, [name]: event.target.value })),
  });

  function save() {
    const found: Partial<Record<Field, string>> = {};
    if (!values.currentPassword) found.currentPassword = 'Enter your current password';
    const problem = newPasswordError(values.newPassword);
    if (problem) found.newPassword = problem;
    else if (values.newPassword === values.currentPassword)
      found.newPassword = 'Choose a password different from the current one';
    if (values.confirmPassword !== values.newPassword) found.confirmPassword = 'The passwords do not match';
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    changePassword.mutate(
      { currentPassword: values.currentPassword, newPassword: values.newPassword, revokeOtherSessions },
      {
        onSuccess: () => {
          showToast(
            revokeOtherSessions ? 'Password changed; other sessions were logged out' : 'Password changed',
          );
          setValues({ currentPassword: '', newPassword: '', confirmPassword: '' });
        },
        onError: (error) => showToast(error.message, 'error'),
      },
    );
  }

  return (
    <SettingsSection
      title="Password"
      description={`Use ${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters. Common passwords are refused.`}
      submitLabel="Change password"
      busy={changePassword.isPending}
      onSubmit={save}
      testId="password-section"
    >
      <Stack spacing={2}>
        <TextField label="Current password" autoComplete="current-password" {...field('currentPassword')} />
        <Stack spacing={2} direction={{ xs: 'column', sm: 'row' }}>
          <TextField label="New password" autoComplete="new-password" {...field('newPassword')} />
          <TextField label="Repeat new password" autoComplete="new-password" {...field('confirmPassword')} />
        </Stack>
        <FormControlLabel
          control={
            <Checkbox
              checked={revokeOtherSessions}
              onChange={(event) => setRevokeOtherSessions(event.target.checked)}
            />
          }
          label="Log out my other sessions (other browsers and devices)"
        />
      </Stack>
    </SettingsSection>
  );
}
