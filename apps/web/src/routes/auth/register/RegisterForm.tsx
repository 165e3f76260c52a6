import { useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { signUp } from '../../../api/auth.ts';
import { storedAffiliateRef } from '../../../app/affiliate-ref.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { markTourPending } from '../../../app/tour/first-visit.ts';
import {
  hasErrors,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  validateSignUp,
  type FieldErrors,
  type SignUpFields,
} from '../credentials-validation.ts';
import { useCompleteSignIn } from '../use-complete-sign-in.ts';

const EMPTY: SignUpFields = { name: '', businessName: '', email: '', password: '' };

/** The sign-up form of /register and /get-started; a new account lands on /welcome. */
export function RegisterForm() {
  const { showToast } = useToast();
  const completeSignIn = useCompleteSignIn();
  const [fields, setFields] = useState<SignUpFields>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors<keyof SignUpFields>>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const field = (name: keyof SignUpFields) => ({
    name,
    value: fields[name],
    error: Boolean(errors[name]),
    helperText: errors[name],
    onChange: (event: { target: { value: string } }) => {
      setFields((current) => ({ ...current, [name]: event.target.value }));
      if (errors[name]) setErrors((current) => ({ ...current, [name]: undefined }));
    },
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = validateSignUp(fields);
    setErrors(found);
    if (hasErrors(found)) return;
    setSubmitting(true);
    setServerError(null);
    try {
      const businessName = fields.businessName.trim();
      const affiliateRef = storedAffiliateRef();
      await signUp({
        name: fields.name.trim(),
        email: fields.email.trim(),
        password: fields.password,
        ...(businessName ? { businessName } : {}),
        ...(affiliateRef ? { affiliateRef } : {}),
      });
      markTourPending();
      showToast('Welcome to Layerline! Your account is ready.');
      await completeSignIn('/welcome');
    } catch (error) {
      setServerError(error instanceof Error ? error.message : 'Sign-up failed');
      setSubmitting(false);
    }
  }

  return (
    <Stack component="form" noValidate onSubmit={submit} spacing={2} aria-label="Create your account">
      {serverError ? (
        <Alert severity="error" data-testid="form-error">
          {serverError}
        </Alert>
      ) : null}
      <TextField label="Your name" autoComplete="name" required {...field('name')} />
      <TextField label="Business name (optional)" autoComplete="organization" {...field('businessName')} />
      <TextField label="Email" type="email" autoComplete="email" required {...field('email')} />
      <TextField
        label="Password"
        type="password"
        autoComplete="new-password"
        required
        {...field('password')}
        helperText={
          errors.password ??
          `${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters; avoid common passwords`
        }
      />
      <Button type="submit" variant="contained" size="large" disabled={submitting}>
        {submitting ? 'Creating your account…' : 'Create account'}
      </Button>
    </Stack>
  );
}
