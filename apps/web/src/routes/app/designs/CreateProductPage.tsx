import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import Typography from '@mui/material/Typography';
import type { Design } from '@layerline/contracts';
import { useDesignsById } from '../../../api/designs.ts';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { DesignDetailDialog } from './detail/DesignDetailDialog.tsx';
import { DesignGrid } from './DesignGrid.tsx';
import { DesignUploader } from './uploader/DesignUploader.tsx';
import { useUploadQueue } from './uploader/use-upload-queue.ts';
import { useDesignParam } from './use-design-param.ts';
import { CreateProductFromDesigns } from '../products/CreateProductFromDesigns.tsx';

const STEPS = [
  'Upload and price the designs',
  'Group them into a product',
  'Link it to your listings',
] as const;

/**
 * §2 /create-product (where the tour's "Upload Design Files" step lands): upload and price the
 * designs, then group the ones just uploaded into a product with its SKU.
 */
export default function CreateProductPage() {
  const queue = useUploadQueue();
  const { designId, openDesign, closeDesign } = useDesignParam();
  return (
    <Box>
      <PageHeading
        title="Create Product"
        subtitle="Upload the 3D files of your product and see what each one costs to print."
      />
      <Stepper
        activeStep={queue.designs.length > 0 ? 1 : 0}
        alternativeLabel
        sx={{ mb: 3, maxWidth: 760, display: { xs: 'none', sm: 'flex' } }}
      >
        {STEPS.map((label) => (
          <Step key={label}>
            <StepLabel>{label}</StepLabel>
          </Step>
        ))}
      </Stepper>
      <Box sx={{ maxWidth: 880 }}>
        <DesignUploader queue={queue} onOpenDesign={openDesign} />
      </Box>
      {queue.designs.length > 0 ? <UploadedDesigns designs={queue.designs} onOpen={openDesign} /> : null}
      {queue.designs.length > 0 ? (
        <CreateProductFromDesigns designIds={queue.designs.map((design) => design.id)} />
      ) : null}
      <DesignDetailDialog designId={designId} onClose={closeDesign} />
    </Box>
  );
}

/** The designs uploaded on this visit, kept fresh so a configuration changed in the detail shows here. */
function UploadedDesigns({
  designs,
  onOpen,
}: {
  designs: readonly Design[];
  onOpen(designId: string): void;
}) {
  const results = useDesignsById(designs);
  const current = results.flatMap((result) => (result.data ? [result.data] : []));
  const total = current.reduce((sum, design) => sum + (design.printConfigs[0]?.quote?.costUsd ?? 0), 0);
  return (
    <Box
      component="section"
      aria-labelledby="uploaded-designs-heading"
      sx={{ mt: 4 }}
      data-testid="uploaded-designs"
    >
      <Box
        sx={{
          display: 'flex',
          alignItems: 'baseline',
          justifyContent: 'space-between',
          gap: 2,
          flexWrap: 'wrap',
          mb: 2,
        }}
      >
        <Typography id="uploaded-designs-heading" variant="h6" component="h2">
          Designs for this product
        </Typography>
        <Typography color="text.secondary" data-testid="uploaded-total">
          {current.length} design{current.length === 1 ? '' : 's'} · together{' '}
          {total.toLocaleString('en-US', { style: 'currency', currency: 'USD' })} per set with their first
          configuration
        </Typography>
      </Box>
      <DesignGrid designs={current} onOpen={onOpen} />
      <Button component={RouterLink} to="/my-designs" sx={{ mt: 2 }}>
        See all my designs
      </Button>
    </Box>
  );
}
