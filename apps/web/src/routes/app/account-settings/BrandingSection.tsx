import { useRef, useState, type ChangeEvent } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { brandingInputSchema, INSERT_MESSAGE_MAX, LOGO_MAX_BYTES, type Branding } from '@layerline/contracts';
import { logoUrl, useBranding, useRemoveLogo, useSaveBranding, useUploadLogo } from '../../../api/branding.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { LoadingSpinner } from '../../../components/LoadingSpinner.tsx';
import { SettingsSection } from './SettingsSection.tsx';

/**
 * Branded parcels (issue 24, point 4; docs/branding.md): the seller's logo and insert message on the
 * packing slip, and whether a thank-you card goes in the box. The logo uploads on its own (it is
 * checked and stored at once); the message and the card are saved with the section's button.
 */
export function BrandingSection() {
  const branding = useBranding();
  if (!branding.data) return <LoadingSpinner label="Loading your parcel branding" testId="branding-spinner" />;
  return <BrandingForm branding={branding.data} />;
}

function BrandingForm({ branding }: { branding: Branding }) {
  const { showToast } = useToast();
  const save = useSaveBranding();
  const upload = useUploadLogo();
  const remove = useRemoveLogo();
  const fileInput = useRef<HTMLInputElement>(null);
  const [insertMessage, setInsertMessage] = useState(branding.insertMessage);
  const [thankYouCard, setThankYouCard] = useState(branding.thankYouCard);
  const [error, setError] = useState<string | null>(null);

  function submit() {
    const parsed = brandingInputSchema.safeParse({ insertMessage, thankYouCard });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'Check the message');
      return;
    }
    setError(null);
    save.mutate(parsed.data, {
      onSuccess: () => showToast('Parcel branding saved'),
      onError: (failure) => showToast(failure.message, 'error'),
    });
  }

  function chooseLogo(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    if (file.size > LOGO_MAX_BYTES) {
      showToast(`The logo is larger than ${LOGO_MAX_BYTES / 1024} KB`, 'error');
      return;
    }
    upload.mutate(file, {
      onSuccess: () => showToast('Logo saved'),
      onError: (failure) => showToast(failure.message, 'error'),
    });
  }

  const logo = branding.logo;
  return (
    <SettingsSection
      title="Parcel branding"
      description="Your logo heads the packing slip in every parcel; your message is printed on it, and a thank-you card can go in the box too."
      submitLabel="Save branding"
      busy={save.isPending}
      onSubmit={submit}
      testId="branding-section"
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap', mb: 2.5 }}>
        <Box
          sx={{ width: 200, height: 80, border: 1, borderColor: 'divider', borderRadius: 2, display: 'grid', placeItems: 'center', bgcolor: 'background.default', overflow: 'hidden' }}
          data-testid="branding-logo-preview"
        >
          {logo ? (
            <Box component="img" src={logoUrl(logo.updatedAt)} alt="Your logo" sx={{ maxWidth: '100%', maxHeight: '100%', objectFit: 'contain' }} />
          ) : (
            <Typography variant="body2" color="text.secondary">
              No logo
            </Typography>
          )}
        </Box>
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1 }}>
          <Box sx={{ display: 'flex', gap: 1 }}>
            <Button variant="outlined" onClick={() => fileInput.current?.click()} disabled={upload.isPending}>
              {upload.isPending ? 'Uploading…' : logo ? 'Replace logo' : 'Upload logo'}
            </Button>
            {logo ? (
              <Button color="inherit" onClick={() => remove.mutate(undefined, { onError: (failure) => showToast(failure.message, 'error') })} disabled={remove.isPending}>
                Remove
              </Button>
            ) : null}
          </Box>
          <Typography variant="caption" color="text.secondary">
            PNG or SVG, up to {LOGO_MAX_BYTES / (1024 * 1024)} MB and 4096 × 4096 px. SVGs are cleaned (no scripts or links) and turned into a picture.
          </Typography>
        </Box>
        <input ref={fileInput} type="file" accept="image/png,image/svg+xml,.png,.svg" hidden onChange={chooseLogo} data-testid="branding-logo-input" />
      </Box>
      <TextField
        label="Insert message"
        name="insertMessage"
        value={insertMessage}
        onChange={(event) => setInsertMessage(event.target.value)}
        multiline
        minRows={3}
        fullWidth
        error={error !== null}
        helperText={error ?? `${insertMessage.length} / ${INSERT_MESSAGE_MAX} — printed on the packing slip (and the card) of every order`}
      />
      <FormControlLabel
        sx={{ mt: 1 }}
        control={<Checkbox checked={thankYouCard} onChange={(event) => setThankYouCard(event.target.checked)} name="thankYouCard" />}
        label="Print a thank-you card with the packing slip"
      />
    </SettingsSection>
  );
}
