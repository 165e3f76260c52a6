import { useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import TextField from '@mui/material/TextField';
import { testimonialSchema, type LandingTestimonial, type Testimonial } from '@layerline/contracts';
import { useLandingTestimonial, useResetTestimonial, useSetTestimonial } from '../../../api/site.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { firstErrorPerField } from '../../../components/field-errors.ts';
import { AdminPanel } from './AdminPanel.tsx';
import { formatDateTime } from './format-date.ts';

type Field = keyof Testimonial;

const FIELDS: readonly { key: Field; label: string; multiline?: boolean; placeholder?: string }[] = [
  { key: 'quote', label: 'Quote', multiline: true },
  { key: 'author', label: 'Who said it' },
  { key: 'byline', label: 'Who they are (optional)', placeholder: 'Owner, Okafor Objects' },
  { key: 'shopName', label: 'Link text', placeholder: 'Okafor Objects on Etsy' },
  { key: 'shopUrl', label: 'Shop address', placeholder: 'https://www.etsy.com/shop/…' },
];

/** The landing page's creator testimonial: sample copy until the operator sets a real one. */
export function LandingTestimonialPanel() {
  const landing = useLandingTestimonial();
  return (
    <AdminPanel
      title="Landing page testimonial"
      subtitle="A creator’s words on the home page, with a link to their shop"
      testId="admin-testimonial"
    >
      {landing.isError ? <Alert severity="error">{landing.error.message}</Alert> : null}
      {landing.isPending ? <Skeleton variant="rounded" height={220} /> : null}
      {landing.data ? <TestimonialForm key={landing.data.updatedAt ?? 'sample'} current={landing.data} /> : null}
    </AdminPanel>
  );
}

function TestimonialForm({ current }: { current: LandingTestimonial }) {
  const { showToast } = useToast();
  const save = useSetTestimonial();
  const reset = useResetTestimonial();
  // The sample is not offered as a starting point: the form asks for a real creator's words.
  const [form, setForm] = useState<Testimonial>(
    current.sample ? { quote: '', author: '', byline: '', shopName: '', shopUrl: '' } : current.testimonial,
  );
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = testimonialSchema.safeParse(form);
    if (!parsed.success) {
      setErrors(firstErrorPerField(parsed.error, FIELDS.map((field) => field.key)));
      return;
    }
    setErrors({});
    save.mutate(parsed.data, {
      onSuccess: () => showToast('The landing page shows this testimonial now'),
      onError: (error) => showToast(error.message, 'error'),
    });
  }

  return (
    <Box component="form" noValidate onSubmit={submit} aria-label="Landing page testimonial">
      {current.sample ? (
        <Alert severity="warning" sx={{ mb: 2 }} data-testid="testimonial-sample-warning">
          The home page shows sample copy, not a real creator’s words. Ask one of your sellers and put
          theirs here.
        </Alert>
      ) : (
        <Alert severity="success" sx={{ mb: 2 }}>
          Shown on the home page since {formatDateTime(current.updatedAt ?? '')}.
        </Alert>
      )}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, gap: 2 }}>
        {FIELDS.map((field) => (
          <TextField
            key={field.key}
            label={field.label}
            size="small"
            placeholder={field.placeholder}
            multiline={field.multiline}
            minRows={field.multiline ? 3 : undefined}
            value={form[field.key]}
            onChange={(event) => setForm((previous) => ({ ...previous, [field.key]: event.target.value }))}
            error={Boolean(errors[field.key])}
            helperText={errors[field.key]}
            sx={field.multiline ? { gridColumn: '1 / -1' } : undefined}
          />
        ))}
      </Box>
      <Box sx={{ display: 'flex', gap: 1, mt: 2, flexWrap: 'wrap' }}>
        <Button type="submit" variant="contained" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Show on the home page'}
        </Button>
        {current.sample ? null : (
          <Button
            color="inherit"
            disabled={reset.isPending}
            onClick={() =>
              reset.mutate(undefined, {
                onSuccess: () => showToast('The home page shows the sample again'),
                onError: (error) => showToast(error.message, 'error'),
              })
            }
          >
            Remove it
          </Button>
        )}
      </Box>
    </Box>
  );
}
