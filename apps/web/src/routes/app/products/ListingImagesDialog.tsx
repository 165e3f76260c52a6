import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import DownloadOutlinedIcon from '@mui/icons-material/DownloadOutlined';
import type { ListingImageSet } from '@layerline/contracts';
import { useListingImages, useRequestListingImages } from '../../../api/listing-images.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { LoadingSpinner } from '../../../components/LoadingSpinner.tsx';

const STATUS_TEXT: Record<ListingImageSet['status'], string> = {
  pending: 'Waiting for the exact slice (or a new colour to be drawn)',
  rendering: 'Rendering…',
  done: 'Ready',
  failed: 'Failed',
};

/**
 * Listing images (issue 24, point 5; docs/listing-images.md): for each variant of a product, the
 * 2000 × 2000 PNGs of its parts' print configurations, each downloadable, or all of one as a zip.
 */
export function ListingImagesDialog({ productId, productName, open, onClose }: { productId: string; productName: string; open: boolean; onClose(): void }) {
  const { showToast } = useToast();
  const images = useListingImages(productId, open);
  const request = useRequestListingImages(productId);
  const missing = images.data?.variants.some((variant) => variant.sets.some((set) => set.status === 'pending' || set.status === 'failed')) ?? false;

  return (
    <Dialog open={open} onClose={onClose} maxWidth="md" fullWidth aria-labelledby="listing-images-title">
      <DialogTitle id="listing-images-title">Listing images · {productName}</DialogTitle>
      <DialogContent dividers data-testid="listing-images">
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          Made from the model the farm prints, in each print configuration’s colour, after its exact slice: four angles on a neutral background, 2000 × 2000
          pixels, ready for your listings.
        </Typography>
        {images.isPending ? <LoadingSpinner label="Loading listing images" testId="listing-images-spinner" /> : null}
        {images.error ? <Alert severity="error">{images.error.message}</Alert> : null}
        {images.data?.variants.map((variant) => (
          <Box key={variant.variantId} sx={{ mb: 3 }} data-testid="listing-images-variant" data-sku={variant.sku}>
            <Typography variant="subtitle1" component="h3">
              {variant.variantName}{' '}
              <Box component="code" sx={{ fontFamily: 'monospace', color: 'text.secondary', fontSize: '0.85em' }}>
                {variant.sku}
              </Box>
            </Typography>
            {variant.sets.length === 0 ? (
              <Typography variant="body2" color="text.secondary">
                This variant has no printed parts.
              </Typography>
            ) : null}
            {variant.sets.map((set) => (
              <Box key={set.printConfigId} sx={{ mt: 1.5 }} data-testid="listing-image-set" data-status={set.status}>
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
                  <Box sx={{ width: 14, height: 14, borderRadius: '50%', bgcolor: set.colour, border: 1, borderColor: 'divider' }} aria-hidden />
                  <Typography variant="body2">{set.configName}</Typography>
                  <Chip size="small" label={STATUS_TEXT[set.status]} color={set.status === 'done' ? 'success' : set.status === 'failed' ? 'error' : 'default'} />
                  {set.zipUrl ? (
                    <Button size="small" href={set.zipUrl} download startIcon={<DownloadOutlinedIcon />} data-testid="listing-images-zip">
                      All as zip
                    </Button>
                  ) : null}
                </Box>
                {set.error ? (
                  <Typography variant="caption" color="error">
                    {set.error}
                  </Typography>
                ) : null}
                {set.images.length > 0 ? (
                  <Box sx={{ display: 'grid', gridTemplateColumns: { xs: 'repeat(2, 1fr)', sm: 'repeat(4, 1fr)' }, gap: 1, mt: 1 }}>
                    {set.images.map((image) => (
                      <Link key={image.angle} href={image.url} download underline="none" aria-label={`Download the ${image.angle} image`} data-testid="listing-image">
                        <Box component="img" src={image.url} alt={`${set.configName}, ${image.angle}`} loading="lazy" sx={{ width: '100%', aspectRatio: '1', borderRadius: 1, border: 1, borderColor: 'divider', display: 'block' }} />
                        <Typography variant="caption" color="text.secondary">
                          {image.angle} · {image.widthPx} × {image.heightPx}
                        </Typography>
                      </Link>
                    ))}
                  </Box>
                ) : null}
              </Box>
            ))}
          </Box>
        ))}
      </DialogContent>
      <DialogActions>
        {missing ? (
          <Button
            onClick={() => request.mutate(undefined, { onError: (failure) => showToast(failure.message, 'error') })}
            disabled={request.isPending}
            data-testid="listing-images-render"
          >
            Render missing images
          </Button>
        ) : null}
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
