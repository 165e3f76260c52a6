import { useState } from 'react';
import Box from '@mui/material/Box';
import TextField from '@mui/material/TextField';
import { updateAccountSchema, type Address, type Me } from '@layerline/contracts';
import { useUpdateAccount } from '../../../api/me.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { firstErrorPerField } from '../../../components/field-errors.ts';
import { SettingsSection } from './SettingsSection.tsx';

const FIELDS: {
  name: keyof Address;
  label: string;
  autoComplete: string;
  wide?: boolean;
  helper?: string;
}[] = [
  { name: 'name', label: 'Contact name', autoComplete: 'name' },
  { name: 'company', label: 'Company', autoComplete: 'organization' },
  { name: 'line1', label: 'Address line 1', autoComplete: 'address-line1', wide: true },
  { name: 'line2', label: 'Address line 2', autoComplete: 'address-line2', wide: true },
  { name: 'city', label: 'City', autoComplete: 'address-level2' },
  { name: 'region', label: 'State / region', autoComplete: 'address-level1' },
  { name: 'postalCode', label: 'Postal code', autoComplete: 'postal-code' },
  { name: 'country', label: 'Country code', autoComplete: 'country', helper: 'Two letters, e.g. US' },
  { name: 'phone', label: 'Phone', autoComplete: 'tel' },
];

/** The return address printed on the packing slip of every parcel we send for this seller. */
export function ReturnAddressSection({ me }: { me: Me }) {
  const { showToast } = useToast();
  const update = useUpdateAccount();
  const [address, setAddress] = useState<Address>(me.returnAddress);
  const [errors, setErrors] = useState<Partial<Record<keyof Address, string>>>({});

  function save() {
    const parsed = updateAccountSchema.safeParse({
      returnAddress: { ...address, country: address.country.trim().toUpperCase() },
    });
    if (!parsed.success) {
      setErrors(firstErrorPerField(parsed.error, Object.keys(address) as (keyof Address)[], 1));
      return;
    }
    setErrors({});
    update.mutate(parsed.data, {
      onSuccess: (updated) => {
        setAddress(updated.returnAddress);
        showToast('Return address saved');
      },
      onError: (error) => showToast(error.message, 'error'),
    });
  }

  return (
    <SettingsSection
      title="Return address"
      description="Printed on the packing slip in every parcel, as where returns come back to. Parcels ship from the print farm."
      submitLabel="Save address"
      busy={update.isPending}
      onSubmit={save}
      testId="return-address-section"
    >
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
        {FIELDS.map((field) => (
          <TextField
            key={field.name}
            label={field.label}
            name={`returnAddress.${field.name}`}
            autoComplete={field.autoComplete}
            value={address[field.name]}
            onChange={(event) => setAddress((current) => ({ ...current, [field.name]: event.target.value }))}
            error={Boolean(errors[field.name])}
            helperText={errors[field.name] ?? field.helper}
            sx={field.wide ? { gridColumn: { sm: '1 / -1' } } : undefined}
          />
        ))}
      </Box>
    </SettingsSection>
  );
}
