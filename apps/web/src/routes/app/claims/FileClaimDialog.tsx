import { useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Skeleton from '@mui/material/Skeleton';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  CLAIM_KIND_LABELS,
  CLAIM_KINDS_NEEDING_PHOTOS,
  CLAIM_PHOTO_MAX_BYTES,
  CLAIM_PHOTO_MAX_COUNT,
  CLAIM_WINDOW_DAYS,
  claimInputSchema,
  type ClaimKind,
} from '@layerline/contracts';
import { useClaimOptions, useFileClaim } from '../../../api/claims.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';

/** The order page's claim form: which parts, what is wrong, photos. */
export function FileClaimDialog({ orderId, orderNumber, onClose }: { orderId: string; orderNumber: string; onClose: () => void }) {
  const options = useClaimOptions(orderId);
  const file = useFileClaim();
  const { showToast } = useToast();
  const [kind, setKind] = useState<ClaimKind | ''>('');
  const [description, setDescription] = useState('');
  const [partIds, setPartIds] = useState<string[]>([]);
  const [photos, setPhotos] = useState<File[]>([]);
  const [error, setError] = useState<string | null>(null);

  function choosePhotos(files: FileList | null) {
    const chosen = [...(files ?? [])];
    const tooBig = chosen.find((photo) => photo.size > CLAIM_PHOTO_MAX_BYTES);
    if (tooBig) return setError(`${tooBig.name} is larger than ${CLAIM_PHOTO_MAX_BYTES / (1024 * 1024)} MB`);
    if (chosen.length > CLAIM_PHOTO_MAX_COUNT) return setError(`At most ${CLAIM_PHOTO_MAX_COUNT} photos`);
    setError(null);
    setPhotos(chosen);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = claimInputSchema.safeParse({ kind: kind || undefined, description, partIds });
    if (!parsed.success) return setError(parsed.error.issues[0]!.message);
    if (photos.length === 0 && CLAIM_KINDS_NEEDING_PHOTOS.includes(parsed.data.kind)) return setError('Add at least one photo that shows the problem');
    setError(null);
    file.mutate(
      { orderId, ...parsed.data, photos },
      {
        onSuccess: () => {
          showToast('Claim filed: we will look at it and tell you what we decide', 'success');
          onClose();
        },
        onError: (failure) => setError(failure.message),
      },
    );
  }

  const data = options.data;
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="file-claim-title">
      <Box component="form" onSubmit={submit} noValidate>
        <DialogTitle id="file-claim-title">File a claim on order {orderNumber}</DialogTitle>
        <DialogContent>
          {options.isPending ? <Skeleton variant="rounded" height={160} /> : null}
          {options.isError ? <Alert severity="error">{options.error.message}</Alert> : null}
          {data?.blockedReason ? (
            <Alert severity="info" data-testid="claim-blocked">
              {data.blockedReason}
            </Alert>
          ) : null}
          {data && !data.blockedReason ? (
            <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, pt: 1 }}>
              <Typography variant="body2" color="text.secondary">
                Tell us within {CLAIM_WINDOW_DAYS} days of delivery (or of the promised date, for a parcel that never came). We reprint the parts for free, refund, or tell you why not.
              </Typography>
              <TextField select label="What is wrong" value={kind} onChange={(e) => setKind(e.target.value as ClaimKind)} required>
                {data.kinds.map((k) => (
                  <MenuItem key={k} value={k}>
                    {CLAIM_KIND_LABELS[k]}
                  </MenuItem>
                ))}
              </TextField>
              <Box role="group" aria-label="Parts">
                <Typography variant="overline">Which parts</Typography>
                {data.parts.map((part, index) => (
                  <FormControlLabel
                    key={part.printJobId}
                    sx={{ display: 'flex' }}
                    control={
                      <Checkbox
                        checked={partIds.includes(part.printJobId)}
                        onChange={(e) => setPartIds((ids) => (e.target.checked ? [...ids, part.printJobId] : ids.filter((id) => id !== part.printJobId)))}
                      />
                    }
                    label={`${part.partName} #${index + 1} (${part.material})`}
                  />
                ))}
              </Box>
              <TextField label="Describe the problem" value={description} onChange={(e) => setDescription(e.target.value)} multiline minRows={3} required />
              <Box>
                <Button variant="outlined" component="label">
                  Add photos
                  <input hidden type="file" accept="image/jpeg,image/png,image/webp" multiple aria-label="Photos" onChange={(e) => choosePhotos(e.target.files)} />
                </Button>
                <Typography variant="caption" sx={{ ml: 2 }} color="text.secondary">
                  {photos.length > 0 ? photos.map((photo) => photo.name).join(', ') : `JPEG, PNG or WebP; up to ${CLAIM_PHOTO_MAX_COUNT}`}
                </Typography>
              </Box>
            </Box>
          ) : null}
          {error ? (
            <Alert severity="error" sx={{ mt: 2 }} role="alert">
              {error}
            </Alert>
          ) : null}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="contained" disabled={!data || Boolean(data.blockedReason) || file.isPending}>
            File claim
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}
