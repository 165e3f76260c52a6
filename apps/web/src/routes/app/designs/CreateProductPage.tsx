import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
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

const STEPS = [
  'Upload and price the designs',
  'Group them into a product',
  'Link it to your listings',
] as const;

/**
 * §2 /create-product (where the tour's "Upload Design Files" step lands). For now this is the
 * first step of creating a product: upload and price. Grouping arrives with the products capability.
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
        activeStep={0}
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
      <Alert severity="info" sx={{ mt: 3, maxWidth: 880 }} data-testid="products-coming">
        Grouping designs into products (with variants and SKUs) arrives with the products capability. Your
        uploaded designs and their configurations are kept in{' '}
        <Box component={RouterLink} to="/my-designs" sx={{ color: 'inherit', fontWeight: 600 }}>
          My Designs
        </Box>{' '}
        and will be ready to group then.
      </Alert>
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
