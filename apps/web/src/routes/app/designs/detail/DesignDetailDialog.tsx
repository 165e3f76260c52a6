import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogContent from '@mui/material/DialogContent';
import Divider from '@mui/material/Divider';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useTheme } from '@mui/material/styles';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import FileDownloadOutlinedIcon from '@mui/icons-material/FileDownloadOutlined';
import { useDeleteDesign, useDesign, useProblemAreas } from '../../../../api/designs.ts';
import { useToast } from '../../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../../components/ConfirmDialog.tsx';
import { PrintConfigSection } from '../configs/PrintConfigSection.tsx';
import { formatBytes } from '../design-format.ts';
import { DesignViewer } from '../viewer/DesignViewer.tsx';
import { DesignFacts } from './DesignFacts.tsx';
import { DesignNameEditor } from './DesignNameEditor.tsx';
import { ProblemList } from './ProblemList.tsx';

/**
 * Everything about one design in a dialog over the page it was opened from (full screen on a
 * phone): the 3D viewer, facts and problems, and its print configurations with live quotes.
 */
export function DesignDetailDialog({ designId, onClose }: { designId: string | null; onClose(): void }) {
  const theme = useTheme();
  const fullScreen = useMediaQuery(theme.breakpoints.down('md'));
  return (
    <Dialog
      open={designId !== null}
      onClose={onClose}
      fullScreen={fullScreen}
      fullWidth
      maxWidth="lg"
      aria-labelledby="design-detail-title"
      slotProps={{ paper: { 'data-testid': 'design-detail' } as object }}
    >
      {designId ? <DesignDetail key={designId} designId={designId} onClose={onClose} /> : null}
    </Dialog>
  );
}

function DesignDetail({ designId, onClose }: { designId: string; onClose(): void }) {
  const { showToast } = useToast();
  const design = useDesign(designId);
  const remove = useDeleteDesign();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [problemCode, setProblemCode] = useState<string | null>(null);
  const [colourOverride, setColourOverride] = useState<string | null>(null);
  const areas = useProblemAreas(designId, problemCode !== null);

  if (design.isPending) {
    return (
      <Box sx={{ p: 6, display: 'grid', placeItems: 'center' }} role="status" aria-label="Loading the design">
        <span id="design-detail-title" hidden>
          Loading the design
        </span>
        <CircularProgress />
      </Box>
    );
  }
  if (design.isError) {
    return (
      <Box sx={{ p: 3 }}>
        <Typography id="design-detail-title" variant="h6" component="h2" gutterBottom>
          Design not available
        </Typography>
        <Alert severity="error" sx={{ mb: 2 }}>
          {design.error.message}
        </Alert>
        <Button onClick={onClose}>Close</Button>
      </Box>
    );
  }

  const current = design.data;
  const area = problemCode ? areas.data?.areas.find((a) => a.code === problemCode) : undefined;
  let highlightNote: string | null = null;
  if (problemCode) {
    if (areas.isPending) highlightNote = 'Finding the problem areas…';
    else if (areas.isError) highlightNote = `Could not load the problem areas: ${areas.error.message}`;
    else if (!area || area.triangles.length === 0)
      highlightNote = 'This problem concerns the whole model, not one area.';
  }
  const colour = colourOverride ?? current.printConfigs[0]?.colour ?? '#f97316';

  function deleteDesign() {
    remove.mutate(designId, {
      onSuccess: () => {
        setConfirmDelete(false);
        showToast(`Deleted “${current.name}”`);
        onClose();
      },
      onError: (error) => {
        setConfirmDelete(false);
        showToast(error.message, 'error');
      },
    });
  }

  return (
    <>
      <Box sx={{ display: 'flex', alignItems: 'flex-start', gap: 1, px: { xs: 2, sm: 3 }, pt: 2, pb: 1 }}>
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <DesignNameEditor design={current} titleId="design-detail-title" />
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', mt: 0.5 }}>
            <Chip size="small" label={current.format.toUpperCase()} />
            <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
              {current.fileName} · {formatBytes(current.sizeBytes)} · uploaded{' '}
              {new Date(current.createdAt).toLocaleDateString()}
            </Typography>
          </Box>
        </Box>
        <Tooltip title="Close">
          <IconButton onClick={onClose} aria-label="Close" edge="end">
            <CloseIcon />
          </IconButton>
        </Tooltip>
      </Box>
      <DialogContent sx={{ px: { xs: 2, sm: 3 }, pb: 3 }}>
        <Box
          sx={{
            display: 'grid',
            gridTemplateColumns: { xs: '1fr', md: 'minmax(0, 3fr) minmax(0, 2fr)' },
            gap: 3,
          }}
        >
          <Box>
            <DesignViewer
              meshUrl={current.viewerMeshUrl}
              bboxMm={current.bboxMm}
              colour={colour}
              highlightTriangles={area && area.triangles.length > 0 ? area.triangles : null}
              fallbackImageUrl={current.thumbnailUrl}
            />
            <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mt: 0.75 }}>
              Drag to orbit · scroll or pinch to zoom · right-drag or two fingers to pan. The grid is the 250
              × 210 mm print bed.
            </Typography>
          </Box>
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2.5, minWidth: 0 }}>
            <DesignFacts design={current} />
            <Box>
              <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, mb: 0.5 }}>
                Checks
              </Typography>
              <ProblemList
                problems={current.problems}
                selectedCode={problemCode}
                onSelect={setProblemCode}
                highlightNote={highlightNote}
              />
            </Box>
            <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
              <Button
                component="a"
                href={current.fileUrl}
                download={current.fileName}
                variant="outlined"
                startIcon={<FileDownloadOutlinedIcon />}
              >
                Download original
              </Button>
              <Button
                color="error"
                variant="outlined"
                startIcon={<DeleteOutlineIcon />}
                onClick={() => setConfirmDelete(true)}
                data-testid="delete-design"
              >
                Delete
              </Button>
            </Box>
          </Box>
        </Box>
        <Divider sx={{ my: 3 }} />
        <PrintConfigSection design={current} onColourChange={setColourOverride} />
      </DialogContent>
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete “${current.name}”?`}
        confirmLabel="Delete design"
        busy={remove.isPending}
        onCancel={() => setConfirmDelete(false)}
        onConfirm={deleteDesign}
      >
        The file, its preview and its {current.printConfigs.length} print configuration
        {current.printConfigs.length === 1 ? '' : 's'} are deleted. This cannot be undone.
      </ConfirmDialog>
    </>
  );
}
