import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import type { ShippingProfile } from '@layerline/contracts';
import { useDeleteShippingProfile, useShippingProfiles } from '../../../api/shipping.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { ShippingProfileAssignDialog } from './ShippingProfileAssignDialog.tsx';
import { ShippingProfileDialog } from './ShippingProfileDialog.tsx';
import { parcelText, promiseText } from './shipping-profile-form.ts';

type Editing = { profile: ShippingProfile | null } | null;

/** /shipping-profiles (admins): parcel sizes, carriers, origin and delivery promise, per seller. */
export default function ShippingProfilesPage() {
  const profiles = useShippingProfiles();
  const remove = useDeleteShippingProfile();
  const { showToast } = useToast();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<ShippingProfile | null>(null);
  const [assigning, setAssigning] = useState<{ profileId: string | null } | null>(null);
  const list = profiles.data?.items ?? [];
  const defaultProfile = list.find((p) => p.isDefault);

  const closeDelete = () => {
    setDeleting(null);
    remove.reset();
  };

  return (
    <Box>
      <PageHeading
        title="Shipping Profiles"
        subtitle="Parcel sizes, carriers and the delivery promise each seller’s orders ship with. Sellers without a profile of their own use the default."
        actions={
          <>
            <Button variant="outlined" onClick={() => setAssigning({ profileId: null })} disabled={list.length === 0}>
              Assign to seller
            </Button>
            <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing({ profile: null })}>
              New profile
            </Button>
          </>
        }
      />
      {profiles.error ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          {profiles.error.message}
        </Alert>
      ) : null}
      {profiles.isPending ? <Skeleton variant="rounded" height={200} /> : null}
      {profiles.data && list.length === 0 ? (
        <Alert severity="info">No shipping profile yet. Create one with its parcel sizes and delivery promise.</Alert>
      ) : null}
      {list.length > 0 ? (
        <TableContainer component={Paper} variant="outlined">
          <Table aria-label="Shipping profiles" data-testid="shipping-profiles">
            <TableHead>
              <TableRow>
                <TableCell>Profile</TableCell>
                <TableCell>Promise</TableCell>
                <TableCell>Handling</TableCell>
                <TableCell>Parcel sizes</TableCell>
                <TableCell>Sellers</TableCell>
                <TableCell align="right">Actions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {list.map((profile) => (
                <TableRow key={profile.id} data-testid="shipping-profile-row" data-profile-id={profile.id}>
                  <TableCell>
                    <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
                      <Typography variant="body2" sx={{ fontWeight: 600 }}>
                        {profile.name}
                      </Typography>
                      {profile.isDefault ? <Chip size="small" color="primary" label="Default" /> : null}
                    </Box>
                    <Typography variant="caption" color="text.secondary">
                      From {profile.origin.city}
                      {profile.origin.region ? `, ${profile.origin.region}` : ''} ({profile.origin.country})
                    </Typography>
                  </TableCell>
                  <TableCell>{promiseText(profile)}</TableCell>
                  <TableCell>
                    {profile.handlingDays} day{profile.handlingDays === 1 ? '' : 's'}
                  </TableCell>
                  <TableCell>
                    <Box component="ul" sx={{ m: 0, pl: 2 }}>
                      {profile.parcels.map((parcel) => (
                        <Typography component="li" variant="body2" key={parcel.id}>
                          {parcelText(parcel)}
                        </Typography>
                      ))}
                    </Box>
                  </TableCell>
                  <TableCell>
                    {profile.sellerCount} seller{profile.sellerCount === 1 ? '' : 's'}
                    {profile.isDefault ? (
                      <Typography variant="caption" color="text.secondary" component="div">
                        and everyone without a profile
                      </Typography>
                    ) : null}
                  </TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    <Button size="small" onClick={() => setEditing({ profile })}>
                      Edit
                    </Button>
                    <Button size="small" onClick={() => setAssigning({ profileId: profile.id })}>
                      Assign
                    </Button>
                    <Button size="small" color="error" onClick={() => setDeleting(profile)}>
                      Delete
                    </Button>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      ) : null}

      {profiles.data?.shippoWebhookUrl ? (
        <Alert severity="info" sx={{ mt: 2 }} data-testid="shippo-webhook-url">
          Shippo tracking updates: give Shippo this webhook URL (track_updated) in its API settings:{' '}
          <Box component="code" sx={{ wordBreak: 'break-all' }}>
            {profiles.data.shippoWebhookUrl}
          </Box>
        </Alert>
      ) : null}

      {editing ? (
        <ShippingProfileDialog
          key={editing.profile?.id ?? 'new'}
          profile={editing.profile}
          defaultOrigin={defaultProfile?.origin}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setEditing(null);
            showToast(editing.profile ? `${saved.name} saved` : `${saved.name} created`);
          }}
        />
      ) : null}
      {assigning ? (
        <ShippingProfileAssignDialog
          profiles={list}
          initialProfileId={assigning.profileId}
          onClose={() => setAssigning(null)}
          onAssigned={(message) => {
            setAssigning(null);
            showToast(message);
          }}
        />
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? 'this profile'}?`}
        confirmLabel="Delete"
        busy={remove.isPending}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting.id, {
            onSuccess: () => {
              showToast(`${deleting.name} deleted`);
              closeDelete();
            },
          })
        }
        onCancel={closeDelete}
      >
        {remove.error ? (
          <Alert severity="error" sx={{ mb: 1.5 }} data-testid="delete-profile-error">
            {remove.error.message}
          </Alert>
        ) : null}
        Sellers who use it go back to the default profile. Labels already bought are not changed.
      </ConfirmDialog>
    </Box>
  );
}
