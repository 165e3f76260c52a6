import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { ApiError } from '../../../api/client.ts';
import { requestSignInLink, signIn, signInWithLink } from '../../../api/auth.ts';
import { AuthCard } from '../AuthCard.tsx';
import { emailError, hasErrors, validateSignIn, type FieldErrors, type SignInFields } from '../credentials-validation.ts';
import { useCompleteSignIn } from '../use-complete-sign-in.ts';

/** The token of an emailed sign-in link: `/login#link=<token>` (a fragment never reaches a server log). */
function linkTokenFromLocation(): string | null {
  return new URLSearchParams(window.location.hash.slice(1)).get('link');
}

export default function LoginPage() {
  const completeSignIn = useCompleteSignIn();
  const [fields, setFields] = useState<SignInFields>({ email: '', password: '' });
  const [errors, setErrors] = useState<FieldErrors<keyof SignInFields>>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [throttled, setThrottled] = useState(false);
  const [linkSentTo, setLinkSentTo] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [linkToken] = useState(linkTokenFromLocation);
  const [usingLink, setUsingLink] = useState(linkToken !== null);
  const linkUsed = useRef(false);

  // Arriving from an emailed link: sign in with it once, then forget it (it works only once).
  useEffect(() => {
    if (!linkToken || linkUsed.current) return;
    linkUsed.current = true;
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    signInWithLink(linkToken)
      .then(() => completeSignIn('/dashboard'))
      .catch((error: unknown) => {
        setServerError(error instanceof Error ? error.message : 'This sign-in link did not work');
        setUsingLink(false);
      });
  }, [linkToken, completeSignIn]);

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
    setThrottled(false);
    try {
      await signIn({ email: fields.email.trim(), password: fields.password });
      await completeSignIn('/dashboard');
    } catch (error) {
      setThrottled(error instanceof ApiError && error.status === 429);
      setServerError(error instanceof Error ? error.message : 'Login failed');
      setSubmitting(false);
    }
  }

  async function emailLink() {
    const problem = emailError(fields.email);
    setErrors(problem ? { email: problem } : {});
    if (problem) return;
    setSubmitting(true);
    setServerError(null);
    try {
      await requestSignInLink(fields.email.trim());
      setThrottled(false);
      setLinkSentTo(fields.email.trim());
    } catch (error) {
      setServerError(error instanceof Error ? error.message : 'Could not send a sign-in link');
    } finally {
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
          {usingLink ? (
            <Alert severity="info" data-testid="link-sign-in">
              Signing you in with your link…
            </Alert>
          ) : null}
          {serverError ? (
            <Alert severity={throttled ? 'warning' : 'error'} data-testid="form-error">
              {serverError}
            </Alert>
          ) : null}
          {linkSentTo ? (
            <Alert severity="success" data-testid="link-sent">
              If an account uses {linkSentTo}, we have emailed it a sign-in link. It works once, for 15 minutes.
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
          <Button type="submit" variant="contained" size="large" disabled={submitting || usingLink}>
            {submitting ? 'Logging in…' : 'Log in'}
          </Button>
          <Button
            variant={throttled ? 'contained' : 'text'}
            color={throttled ? 'secondary' : 'primary'}
            onClick={() => void emailLink()}
            disabled={submitting || usingLink}
            data-testid="email-link"
          >
            Email me a sign-in link
          </Button>
        </Stack>
      </AuthCard>
    </Box>
  );
}
