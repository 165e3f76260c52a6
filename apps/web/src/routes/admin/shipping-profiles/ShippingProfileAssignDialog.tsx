import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import type { ShippingProfile } from '@layerline/contracts';
import { useAssignShippingProfile } from '../../../api/shipping.ts';

const DEFAULT = '__default__';

/** Gives a seller (by email or account id) a shipping profile, or sends them back to the default. */
export function ShippingProfileAssignDialog({
  profiles,
  initialProfileId,
  onClose,
  onAssigned,
}: {
  profiles: ShippingProfile[];
  initialProfileId: string | null;
  onClose(): void;
  onAssigned(message: string): void;
}) {
  const assign = useAssignShippingProfile();
  const [seller, setSeller] = useState('');
  const [profileId, setProfileId] = useState(initialProfileId ?? DEFAULT);
  const [sellerError, setSellerError] = useState<string | null>(null);

  const submit = () => {
    const wanted = seller.trim();
    if (!wanted) {
      setSellerError('Enter the seller’s email or account id');
      return;
    }
    setSellerError(null);
    const chosen = profileId === DEFAULT ? null : profileId;
    const name = profiles.find((p) => p.id === chosen)?.name;
    assign.mutate(
      { profileId: chosen, seller: wanted },
      {
        onSuccess: () =>
          onAssigned(name ? `${wanted} now ships with ${name}` : `${wanted} now ships with the default profile`),
      },
    );
  };

  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth aria-labelledby="assign-profile-title">
      <DialogTitle id="assign-profile-title">Assign to a seller</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {assign.error ? <Alert severity="error">{assign.error.message}</Alert> : null}
          <TextField
            label="Seller’s email or account id"
            value={seller}
            onChange={(event) => setSeller(event.target.value)}
            size="small"
            autoFocus
            error={Boolean(sellerError)}
            helperText={sellerError}
            onKeyDown={(event) => {
              if (event.key === 'Enter') submit();
            }}
          />
          <TextField
            select
            label="Shipping profile"
            value={profileId}
            onChange={(event) => setProfileId(event.target.value)}
            size="small"
          >
            <MenuItem value={DEFAULT}>The default profile</MenuItem>
            {profiles.map((profile) => (
              <MenuItem key={profile.id} value={profile.id}>
                {profile.name}
                {profile.isDefault ? ' (default)' : ''}
              </MenuItem>
            ))}
          </TextField>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={assign.isPending}>
          Cancel
        </Button>
        <Button variant="contained" onClick={submit} disabled={assign.isPending}>
          {assign.isPending ? 'Assigning…' : 'Assign'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
