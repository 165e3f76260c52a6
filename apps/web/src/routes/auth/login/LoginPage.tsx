import { useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { signIn } from '../../../api/auth.ts';
import { AuthCard } from '../AuthCard.tsx';
import { hasErrors, validateSignIn, type FieldErrors, type SignInFields } from '../credentials-validation.ts';
import { useCompleteSignIn } from '../use-complete-sign-in.ts';

export default function LoginPage() {
  const completeSignIn = useCompleteSignIn();
  const [fields, setFields] = useState<SignInFields>({ email: '', password: '' });
  const [errors, setErrors] = useState<FieldErrors<keyof SignInFields>>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const field = (name: keyof SignInFields) => ({
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
    const found = validateSignIn(fields);
    setErrors(found);
    if (hasErrors(found)) return;
    setSubmitting(true);
    setServerError(null);
    try {
      await signIn({ email: fields.email.trim(), password: fields.password });
      await completeSignIn('/dashboard');
    } catch (error) {
      setServerError(error instanceof Error ? error.message : 'Login failed');
      setSubmitting(false);
    }
  }

  return (
    <Box sx={{ px: 2, py: { xs: 4, md: 8 } }}>
      <AuthCard
        title="Welcome back"
        subtitle="Log in to manage your designs, products and orders."
        footer={
          <>
            New to Layerline?{' '}
            <Link component={RouterLink} to="/get-started">
              Create an account
            </Link>
          </>
        }
      >
        <Stack component="form" noValidate onSubmit={submit} spacing={2} aria-label="Log in">
          {serverError ? (
            <Alert severity="error" data-testid="form-error">
              {serverError}
            </Alert>
          ) : null}
          <TextField label="Email" type="email" autoComplete="email" required autoFocus {...field('email')} />
          <TextField
            label="Password"
            type="password"
            autoComplete="current-password"
            required
            {...field('password')}
          />
          <Button type="submit" variant="contained" size="large" disabled={submitting}>
            {submitting ? 'Logging in…' : 'Log in'}
          </Button>
        </Stack>
      </AuthCard>
    </Box>
  );
}
