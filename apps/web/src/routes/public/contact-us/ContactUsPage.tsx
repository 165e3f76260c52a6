import { useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import Link from '@mui/material/Link';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import SendIcon from '@mui/icons-material/Send';
import type { ContactMessageInput } from '@layerline/contracts';
import { useAuth } from '../../../app/auth/AuthProvider.tsx';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { PageIntro } from '../components/PageIntro.tsx';
import {
  CONTACT_SUCCESS_MESSAGE,
  EMPTY_CONTACT_MESSAGE,
  validateContactMessage,
  type ContactField,
  type ContactFieldErrors,
} from './contact-form.ts';
import { useSendContactMessage } from './use-send-contact-message.ts';

const HELPFUL_LINKS = [
  { label: 'Pricing', to: '/pricing', why: 'the per-gram rates and what a quote includes' },
  { label: 'How it works', to: '/how-it-works', why: 'what happens from upload to delivery' },
  { label: '3D design handling policy', to: '/3d-design-handling-policy', why: 'who can see your files' },
] as const;

export default function ContactUsPage() {
  const { user } = useAuth();
  const { showToast } = useToast();
  const send = useSendContactMessage();
  const [values, setValues] = useState<ContactMessageInput>(EMPTY_CONTACT_MESSAGE);
  const [errors, setErrors] = useState<ContactFieldErrors>({});
  const [triedToSend, setTriedToSend] = useState(false);

  // A signed-in seller should not have to type who they are (filled in once, when we learn who they are).
  const [prefilledFor, setPrefilledFor] = useState<string | null>(null);
  if (user && prefilledFor !== user.id) {
    setPrefilledFor(user.id);
    setValues((current) => ({
      ...current,
      name: current.name || user.name,
      email: current.email || user.email,
    }));
  }

  const update = (field: ContactField, value: string) => {
    const next = { ...values, [field]: value };
    setValues(next);
    // After a first attempt, problems disappear as soon as they are fixed.
    if (triedToSend) {
      const checked = validateContactMessage(next);
      setErrors(checked.ok ? {} : checked.errors);
    }
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTriedToSend(true);
    const checked = validateContactMessage(values);
    if (!checked.ok) {
      setErrors(checked.errors);
      const firstInvalid = (Object.keys(EMPTY_CONTACT_MESSAGE) as ContactField[]).find(
        (field) => checked.errors[field],
      );
      if (firstInvalid) document.getElementById(`contact-${firstInvalid}`)?.focus();
      return;
    }
    setErrors({});
    send.mutate(checked.message, {
      onSuccess: () => {
        showToast(CONTACT_SUCCESS_MESSAGE, 'success');
        setValues({ ...EMPTY_CONTACT_MESSAGE, name: user?.name ?? '', email: user?.email ?? '' });
        setTriedToSend(false);
      },
    });
  };

  const fieldProps = (field: ContactField) => ({
    id: `contact-${field}`,
    name: field,
    value: values[field],
    onChange: (event: { target: { value: string } }) => update(field, event.target.value),
    error: Boolean(errors[field]),
    helperText: errors[field] ?? ' ',
    disabled: send.isPending,
    slotProps: { htmlInput: { 'data-testid': `contact-${field}` } },
  });

  return (
    <>
      <PageIntro eyebrow="Contact us" title="Talk to the print farm">
        Questions about a design, a quote, materials or an order? Send us a message and a person from the farm
        will answer by email.
      </PageIntro>
      <Container maxWidth="lg" sx={{ py: { xs: 5, md: 8 } }}>
        <Box
          sx={{
            display: 'grid',
            gap: { xs: 4, md: 6 },
            gridTemplateColumns: { xs: '1fr', md: '3fr 2fr' },
            alignItems: 'start',
          }}
        >
          <Box
            component="form"
            noValidate
            aria-label="Contact form"
            data-testid="contact-form"
            onSubmit={onSubmit}
            sx={{
              p: { xs: 2.5, md: 4 },
              borderRadius: 4,
              border: 1,
              borderColor: 'divider',
              bgcolor: 'background.paper',
              display: 'grid',
              gap: 1,
            }}
          >
            <Box
              sx={{
                display: 'grid',
                gap: { xs: 1, sm: 2 },
                gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' },
              }}
            >
              <TextField label="Your name" autoComplete="name" required {...fieldProps('name')} />
              <TextField label="Email" type="email" autoComplete="email" required {...fieldProps('email')} />
            </Box>
            <TextField label="Subject" required {...fieldProps('subject')} />
            <TextField label="Message" required multiline minRows={6} {...fieldProps('message')} />
            {send.isError ? (
              <Alert severity="error" data-testid="contact-error" onClose={() => send.reset()}>
                Your message was not sent: {send.error.message}
              </Alert>
            ) : null}
            <Box>
              <Button
                type="submit"
                variant="contained"
                size="large"
                endIcon={<SendIcon />}
                loading={send.isPending}
                data-testid="contact-submit"
                sx={{ borderRadius: 999, px: 4 }}
              >
                Send message
              </Button>
            </Box>
          </Box>
          <Box component="aside" aria-labelledby="contact-aside-heading">
            <Typography id="contact-aside-heading" variant="h5" component="h2">
              Before you write
            </Typography>
            <Typography color="text.secondary" sx={{ mt: 1.5 }}>
              The answer may already be on one of these pages:
            </Typography>
            <Box component="ul" sx={{ pl: 2.5, mt: 1.5, '& li': { mb: 1.25 } }}>
              {HELPFUL_LINKS.map((link) => (
                <li key={link.to}>
                  <Link component={RouterLink} to={link.to} sx={{ fontWeight: 600 }}>
                    {link.label}
                  </Link>
                  <Typography component="span" color="text.secondary">
                    {' '}
                    – {link.why}
                  </Typography>
                </li>
              ))}
            </Box>
            <Typography color="text.secondary" sx={{ mt: 2 }}>
              About an order? Include the order number from your marketplace so we can find it quickly. We use
              your email address only to reply; see our{' '}
              <Link component={RouterLink} to="/privacy-policy">
                privacy policy
              </Link>
              .
            </Typography>
          </Box>
        </Box>
      </Container>
    </>
  );
}
