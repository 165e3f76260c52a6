import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { SHIPPING_ZONES, type ShippingAddress, type ShippingProfile, type ShippingZone } from '@layerline/contracts';
import { useCreateShippingProfile, useUpdateShippingProfile } from '../../../api/shipping.ts';
import {
  emptyParcelRow,
  emptyProfileForm,
  errorPlace,
  profileBody,
  profileFormFrom,
  type FormErrors,
  type ParcelRow,
  type ProfileForm,
} from './shipping-profile-form.ts';

const PARCEL_COLUMNS: { key: Exclude<keyof ParcelRow, 'id'>; label: string; path: string; width: number }[] = [
  { key: 'name', label: 'Name', path: 'name', width: 150 },
  { key: 'lengthMm', label: 'L (mm)', path: 'lengthMm', width: 80 },
  { key: 'widthMm', label: 'W (mm)', path: 'widthMm', width: 80 },
  { key: 'heightMm', label: 'H (mm)', path: 'heightMm', width: 80 },
  { key: 'tareGrams', label: 'Tare (g)', path: 'tareGrams', width: 80 },
  { key: 'maxGrams', label: 'Max (g)', path: 'maxGrams', width: 90 },
  { key: 'cost', label: 'Cost ($)', path: 'costCents', width: 80 },
];

const ORIGIN_FIELDS: { key: keyof ShippingAddress; label: string; wide?: boolean; helper?: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'company', label: 'Company' },
  { key: 'line1', label: 'Address line 1', wide: true },
  { key: 'line2', label: 'Address line 2', wide: true },
  { key: 'city', label: 'City' },
  { key: 'region', label: 'State / region' },
  { key: 'postalCode', label: 'Postal code' },
  { key: 'country', label: 'Country code', helper: 'Two letters, e.g. US' },
  { key: 'phone', label: 'Phone' },
];

const ZONE_LABELS: Record<ShippingZone, string> = { domestic: 'Domestic', international: 'International' };

/**
 * Create or edit a shipping profile: its parcel sizes, the carriers and services to prefer per zone,
 * where parcels ship from, handling time and the delivery promise. Mounted per profile (`key`).
 */
export function ShippingProfileDialog({
  profile,
  defaultOrigin,
  onClose,
  onSaved,
}: {
  /** The profile to edit, or null to create one. */
  profile: ShippingProfile | null;
  /** Where a new profile ships from until changed (the default profile's origin). */
  defaultOrigin?: ShippingAddress;
  onClose(): void;
  onSaved(saved: ShippingProfile): void;
}) {
  const [form, setForm] = useState<ProfileForm>(() =>
    profile ? profileFormFrom(profile) : emptyProfileForm(defaultOrigin),
  );
  const [errors, setErrors] = useState<FormErrors>({});
  const create = useCreateShippingProfile();
  const update = useUpdateShippingProfile();
  const mutation = profile ? update : create;

  const set = <K extends keyof ProfileForm>(key: K, value: ProfileForm[K]) =>
    setForm((current) => ({ ...current, [key]: value }));
  const setParcel = (index: number, key: keyof ParcelRow, value: string) =>
    setForm((current) => ({
      ...current,
      parcels: current.parcels.map((row, i) => (i === index ? { ...row, [key]: value } : row)),
    }));
  const setOrigin = (key: keyof ShippingAddress, value: string) =>
    setForm((current) => ({ ...current, origin: { ...current.origin, [key]: value } }));
  const setZone = (zone: ShippingZone, key: 'carrier' | 'service', value: string) =>
    setForm((current) => ({ ...current, zones: { ...current.zones, [zone]: { ...current.zones[zone], [key]: value } } }));

  const submit = () => {
    const result = profileBody(form);
    if ('errors' in result) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    const done = { onSuccess: (saved: ShippingProfile) => onSaved(saved) };
    if (profile) update.mutate({ id: profile.id, input: result.body }, done);
    else create.mutate(result.body, done);
  };

  const field = (path: string) => ({ error: Boolean(errors[path]), helperText: errors[path] });
  const problems = Object.entries(errors);

  return (
    <Dialog open onClose={onClose} maxWidth="md" fullWidth aria-labelledby="shipping-profile-dialog-title">
      <DialogTitle id="shipping-profile-dialog-title">
        {profile ? `Edit ${profile.name}` : 'New shipping profile'}
      </DialogTitle>
      <DialogContent dividers>
        <Stack spacing={3}>
          {mutation.error ? <Alert severity="error">{mutation.error.message}</Alert> : null}
          {problems.length > 0 ? (
            <Alert severity="error" data-testid="profile-form-errors">
              <Typography variant="body2" sx={{ fontWeight: 600 }}>
                Please fix {problems.length === 1 ? 'this' : `these ${problems.length} things`}:
              </Typography>
              <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
                {problems.slice(0, 8).map(([path, message]) => (
                  <li key={path}>
                    {errorPlace(path)}: {message}
                  </li>
                ))}
              </Box>
            </Alert>
          ) : null}

          <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '2fr 1fr' } }}>
            <TextField
              label="Profile name"
              value={form.name}
              onChange={(event) => set('name', event.target.value)}
              size="small"
              autoFocus
              {...field('name')}
            />
            <TextField
              label="Handling days"
              type="number"
              value={form.handlingDays}
              onChange={(event) => set('handlingDays', event.target.value)}
              size="small"
              {...field('handlingDays')}
              helperText={errors.handlingDays ?? 'Working days from packing to the carrier'}
            />
            <TextField
              label="Promise name"
              placeholder="Standard"
              value={form.promiseLabel}
              onChange={(event) => set('promiseLabel', event.target.value)}
              size="small"
              {...field('promiseLabel')}
            />
            <TextField
              label="Promise days"
              type="number"
              value={form.promiseDays}
              onChange={(event) => set('promiseDays', event.target.value)}
              size="small"
              {...field('promiseDays')}
              helperText={errors.promiseDays ?? 'Delivered within this many days of packing'}
            />
          </Box>
          <FormControlLabel
            control={<Switch checked={form.isDefault} onChange={(event) => set('isDefault', event.target.checked)} />}
            label="Default profile (for every seller without a profile of their own)"
          />

          <Box>
            <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
              Parcel sizes
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              Inside dimensions, the empty box with its filling (tare), the most it may weigh packed, and what
              box and filling cost.
            </Typography>
            {errors.parcels ? (
              <Alert severity="error" sx={{ mb: 1 }}>
                {errors.parcels}
              </Alert>
            ) : null}
            <TableContainer>
              <Table size="small" aria-label="Parcel sizes" data-testid="parcel-sizes">
                <TableHead>
                  <TableRow>
                    {PARCEL_COLUMNS.map((column) => (
                      <TableCell key={column.key} sx={{ minWidth: column.width, px: 0.5 }}>
                        {column.label}
                      </TableCell>
                    ))}
                    <TableCell sx={{ px: 0.5 }} />
                  </TableRow>
                </TableHead>
                <TableBody>
                  {form.parcels.map((row, index) => (
                    <TableRow key={row.id} data-testid="parcel-size-row">
                      {PARCEL_COLUMNS.map((column) => {
                        const path = `parcels.${index}.${column.path}`;
                        return (
                          <TableCell key={column.key} sx={{ px: 0.5, verticalAlign: 'top' }}>
                            <TextField
                              size="small"
                              fullWidth
                              value={row[column.key]}
                              onChange={(event) => setParcel(index, column.key, event.target.value)}
                              error={Boolean(errors[path])}
                              helperText={errors[path]}
                              slotProps={{
                                htmlInput: {
                                  'aria-label': `Parcel ${index + 1} ${column.label}`,
                                  inputMode: column.key === 'name' ? 'text' : 'decimal',
                                },
                              }}
                            />
                          </TableCell>
                        );
                      })}
                      <TableCell sx={{ px: 0.5, verticalAlign: 'top' }}>
                        <IconButton
                          aria-label={`Remove parcel ${index + 1}`}
                          onClick={() => set('parcels', form.parcels.filter((_, i) => i !== index))}
                        >
                          <DeleteOutlineIcon fontSize="small" />
                        </IconButton>
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
            <Button
              startIcon={<AddIcon />}
              onClick={() => set('parcels', [...form.parcels, emptyParcelRow()])}
              disabled={form.parcels.length >= 20}
              sx={{ mt: 1 }}
            >
              Add parcel size
            </Button>
          </Box>

          <Box>
            <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
              Carriers and services
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              Carrier and service codes to prefer per zone (for example usps and usps_ground_advantage). Leave
              empty for any: the cheapest rate that keeps the promise.
            </Typography>
            <Stack spacing={1.5}>
              {SHIPPING_ZONES.map((zone) => (
                <Box
                  key={zone}
                  sx={{ display: 'grid', gap: 1.5, gridTemplateColumns: { xs: '1fr', sm: '120px 1fr 1fr' }, alignItems: 'center' }}
                >
                  <Typography variant="body2" sx={{ fontWeight: 600 }}>
                    {ZONE_LABELS[zone]}
                  </Typography>
                  <TextField
                    size="small"
                    label="Carrier"
                    placeholder="any"
                    value={form.zones[zone].carrier}
                    onChange={(event) => setZone(zone, 'carrier', event.target.value)}
                  />
                  <TextField
                    size="small"
                    label="Service"
                    placeholder="any"
                    value={form.zones[zone].service}
                    onChange={(event) => setZone(zone, 'service', event.target.value)}
                  />
                </Box>
              ))}
            </Stack>
          </Box>

          <Box>
            <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, mb: 1 }}>
              Ships from
            </Typography>
            <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
              {ORIGIN_FIELDS.map((origin) => (
                <TextField
                  key={origin.key}
                  size="small"
                  label={origin.label}
                  value={form.origin[origin.key]}
                  onChange={(event) => setOrigin(origin.key, event.target.value)}
                  error={Boolean(errors[`origin.${origin.key}`])}
                  helperText={errors[`origin.${origin.key}`] ?? origin.helper}
                  sx={origin.wide ? { gridColumn: { sm: '1 / -1' } } : undefined}
                />
              ))}
            </Box>
          </Box>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={mutation.isPending}>
          Cancel
        </Button>
        <Button variant="contained" onClick={submit} disabled={mutation.isPending}>
          {mutation.isPending ? 'Saving…' : profile ? 'Save profile' : 'Create profile'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
