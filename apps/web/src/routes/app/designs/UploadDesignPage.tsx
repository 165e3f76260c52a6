import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import GridViewOutlinedIcon from '@mui/icons-material/GridViewOutlined';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { DesignDetailDialog } from './detail/DesignDetailDialog.tsx';
import { DesignUploader } from './uploader/DesignUploader.tsx';
import { useUploadQueue } from './uploader/use-upload-queue.ts';
import { useDesignParam } from './use-design-param.ts';

/** §2 /upload-design: drop models, watch each one upload and get checked and priced. */
export default function UploadDesignPage() {
  const queue = useUploadQueue();
  const { designId, openDesign, closeDesign } = useDesignParam();
  return (
    <Box>
      <PageHeading
        title="Upload Design"
        subtitle="Each model is checked for printing problems and priced as soon as it arrives."
        actions={
          <Button
            component={RouterLink}
            to="/my-designs"
            variant="outlined"
            startIcon={<GridViewOutlinedIcon />}
          >
            My designs
          </Button>
        }
      />
      <Box sx={{ maxWidth: 880 }}>
        <DesignUploader queue={queue} onOpenDesign={openDesign} />
        {queue.designs.length > 0 && !queue.busy ? (
          <Alert
            severity="success"
            sx={{ mt: 2 }}
            action={
              <Button component={RouterLink} to="/my-designs" color="inherit" size="small">
                Go to My Designs
              </Button>
            }
          >
            {queue.designs.length === 1
              ? 'Your design is ready.'
              : `${queue.designs.length} designs are ready.`}{' '}
            Open one to change its filament, infill or add-ons and see the price change.
          </Alert>
        ) : null}
      </Box>
      <DesignDetailDialog designId={designId} onClose={closeDesign} />
    </Box>
  );
}
