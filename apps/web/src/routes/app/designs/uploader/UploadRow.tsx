import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import CloseIcon from '@mui/icons-material/Close';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlineOutlined';
import InsertDriveFileOutlinedIcon from '@mui/icons-material/InsertDriveFileOutlined';
import { formatBytes, formatDimensions, formatQuoteLine } from '../design-format.ts';
import { ProblemChips } from '../ProblemChips.tsx';
import type { UploadItem } from './use-upload-queue.ts';

const STATUS_TEXT = {
  queued: 'Waiting…',
  uploading: 'Uploading',
  analysing: 'Analysing…',
  done: 'Ready',
  failed: 'Refused',
  cancelled: 'Cancelled',
} as const;

export function UploadRow({
  item,
  onCancel,
  onOpen,
}: {
  item: UploadItem;
  onCancel(): void;
  onOpen(designId: string): void;
}) {
  const { design } = item;
  const quote = design?.printConfigs[0]?.quote ?? null;
  const cancellable = item.status === 'queued' || item.status === 'uploading';
  return (
    <Paper
      component="li"
      variant="outlined"
      data-testid="upload-row"
      data-status={item.status}
      data-file-name={item.fileName}
      sx={{
        p: 1.5,
        display: 'flex',
        gap: 1.5,
        alignItems: 'center',
        borderColor: item.status === 'failed' ? 'error.main' : 'divider',
      }}
    >
      <Box
        sx={{
          width: 56,
          height: 56,
          flexShrink: 0,
          borderRadius: 1.5,
          bgcolor: 'action.hover',
          display: 'grid',
          placeItems: 'center',
          overflow: 'hidden',
          color: item.status === 'failed' ? 'error.main' : 'text.secondary',
        }}
      >
        {design ? (
          <Box
            component="img"
            src={design.thumbnailUrl}
            alt=""
            sx={{ width: '100%', height: '100%', objectFit: 'contain' }}
          />
        ) : item.status === 'failed' ? (
          <ErrorOutlineIcon />
        ) : (
          <InsertDriveFileOutlinedIcon />
        )}
      </Box>
      <Box sx={{ flex: 1, minWidth: 0 }}>
        <Box sx={{ display: 'flex', gap: 1, alignItems: 'baseline', flexWrap: 'wrap' }}>
          <Typography
            variant="body1"
            sx={{
              fontWeight: 600,
              overflow: 'hidden',
              textOverflow: 'ellipsis',
              whiteSpace: 'nowrap',
              maxWidth: '100%',
            }}
          >
            {item.fileName}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {formatBytes(item.sizeBytes)}
          </Typography>
        </Box>
        {item.status === 'uploading' ? (
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mt: 0.75 }}>
            <LinearProgress
              variant="determinate"
              value={Math.round(item.progress * 100)}
              sx={{ flex: 1, height: 6, borderRadius: 3 }}
              aria-label={`Uploading ${item.fileName}`}
            />
            <Typography variant="caption" color="text.secondary" sx={{ minWidth: 36, textAlign: 'right' }}>
              {Math.round(item.progress * 100)}%
            </Typography>
          </Box>
        ) : null}
        {item.status === 'analysing' ? (
          <Box sx={{ mt: 0.75 }}>
            <LinearProgress sx={{ height: 6, borderRadius: 3 }} aria-label={`Analysing ${item.fileName}`} />
            <Typography variant="caption" color="text.secondary">
              Analysing… checking the mesh and working out a quote
            </Typography>
          </Box>
        ) : null}
        {item.status === 'queued' || item.status === 'cancelled' ? (
          <Typography variant="body2" color="text.secondary">
            {STATUS_TEXT[item.status]}
          </Typography>
        ) : null}
        {item.status === 'failed' ? (
          <Typography variant="body2" color="error" data-testid="upload-error" role="alert">
            {item.error}
          </Typography>
        ) : null}
        {design ? (
          <Box sx={{ mt: 0.5, display: 'flex', flexDirection: 'column', gap: 0.5 }}>
            <Typography variant="body2" color="text.secondary">
              {formatDimensions(design.bboxMm)}
              {quote ? (
                <>
                  {' · '}
                  <Box
                    component="span"
                    sx={{ color: 'text.primary', fontWeight: 600 }}
                    data-testid="upload-quote"
                  >
                    {formatQuoteLine(quote)}
                  </Box>
                </>
              ) : null}
            </Typography>
            <ProblemChips problems={design.problems} max={2} />
          </Box>
        ) : null}
      </Box>
      {design ? (
        <Button size="small" variant="outlined" onClick={() => onOpen(design.id)} sx={{ flexShrink: 0 }}>
          Open
        </Button>
      ) : null}
      {cancellable ? (
        <Tooltip title="Cancel">
          <IconButton onClick={onCancel} aria-label={`Cancel ${item.fileName}`} size="small">
            <CloseIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      ) : null}
    </Paper>
  );
}
