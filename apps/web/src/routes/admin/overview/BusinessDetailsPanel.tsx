import { useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import TextField from '@mui/material/TextField';
import { businessDetailsSchema, type BusinessDetails, type BusinessDetailsState } from '@layerline/contracts';
import { useBusinessDetails, useSetBusinessDetails } from '../../../api/wallet.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { firstErrorPerField } from '../../../components/field-errors.ts';
import { AdminPanel } from './AdminPanel.tsx';

type Field = keyof BusinessDetails;

const FIELDS: readonly { key: Field; label: string; multiline?: boolean }[] = [
  { key: 'legalName', label: 'Legal name' },
  { key: 'email', label: 'Billing email' },
  { key: 'address', label: 'Address', multiline: true },
  { key: 'taxId', label: 'Tax ID (optional)' },
  { key: 'website', label: 'Website (optional)' },
];

/** The platform's business details: the issuer on every receipt and statement (docs/wallet.md). */
export function BusinessDetailsPanel() {
  const details = useBusinessDetails(true);
  return (
    <AdminPanel title="Business details" subtitle="Printed on every receipt and monthly statement sellers download" testId="admin-business-details">
      {details.isError ? <Alert severity="error">{details.error.message}</Alert> : null}
      {details.isPending ? <Skeleton variant="rounded" height={180} /> : null}
      {details.data ? <DetailsForm key={details.data.details.legalName} current={details.data} /> : null}
    </AdminPanel>
  );
}

function DetailsForm({ current }: { current: BusinessDetailsState }) {
  const { showToast } = useToast();
  const save = useSetBusinessDetails();
  const [form, setForm] = useState<BusinessDetails>(
    current.sample ? { legalName: '', address: '', email: '', taxId: '', website: '' } : current.details,
  );
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = businessDetailsSchema.safeParse(form);
    if (!parsed.success) {
      setErrors(firstErrorPerField(parsed.error, FIELDS.map((field) => field.key)));
      return;
    }
    setErrors({});
    save.mutate(parsed.data, {
      onSuccess: () => showToast('Receipts issued from now on carry these details'),
      onError: (error) => showToast(error.message, 'error'),
    });
  }

  return (
    <Box component="form" noValidate onSubmit={submit} aria-label="Business details">
      {current.sample ? (
        <Alert severity="warning" sx={{ mb: 2 }}>
          Receipts show placeholder business details. Enter your business’s legal name and address.
        </Alert>
      ) : null}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, gap: 2 }}>
        {FIELDS.map((field) => (
          <TextField
            key={field.key}
            label={field.label}
            size="small"
            multiline={field.multiline}
            minRows={field.multiline ? 2 : undefined}
            value={form[field.key]}
            onChange={(event) => setForm((previous) => ({ ...previous, [field.key]: event.target.value }))}
            error={Boolean(errors[field.key])}
            helperText={errors[field.key]}
            sx={field.multiline ? { gridColumn: '1 / -1' } : undefined}
          />
        ))}
      </Box>
      <Button type="submit" variant="contained" disabled={save.isPending} sx={{ mt: 2 }}>
        {save.isPending ? 'Saving…' : 'Save business details'}
      </Button>
    </Box>
  );
}
