import { useId, useRef, useState, type DragEvent } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import CloudUploadOutlinedIcon from '@mui/icons-material/CloudUploadOutlined';
import { DEFAULT_MAX_UPLOAD_BYTES, UPLOAD_ACCEPT } from '@layerline/contracts';
import { formatBytes } from '../design-format.ts';
import { UploadRow } from './UploadRow.tsx';
import type { UploadQueue } from './use-upload-queue.ts';

/**
 * Drop zone and file picker, then one row per file: progress, analysis, and the quote or the
 * reason the file was refused. The page owns the queue so it can show the uploaded designs too.
 */
export function DesignUploader({
  queue,
  onOpenDesign,
}: {
  queue: UploadQueue;
  onOpenDesign(designId: string): void;
}) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const hintId = useId();

  function onDrop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    if (event.dataTransfer.files.length > 0) queue.addFiles(event.dataTransfer.files);
  }

  const finished = queue.items.some(
    (item) => item.status === 'done' || item.status === 'failed' || item.status === 'cancelled',
  );

  return (
    <Stack spacing={2}>
      <Paper
        variant="outlined"
        data-testid="upload-dropzone"
        onDragEnter={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = 'copy';
        }}
        onDragLeave={(event) => {
          // Leaving for a child element is not leaving the zone.
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={onDrop}
        sx={{
          borderStyle: 'dashed',
          borderWidth: 2,
          borderColor: dragging ? 'primary.main' : 'divider',
          bgcolor: dragging ? 'action.selected' : 'background.paper',
          borderRadius: 3,
          px: { xs: 2, sm: 4 },
          py: { xs: 4, sm: 6 },
          textAlign: 'center',
          transition: 'border-color 150ms, background-color 150ms',
        }}
      >
        <CloudUploadOutlinedIcon sx={{ fontSize: 56, color: 'primary.main' }} aria-hidden />
        <Typography variant="h6" component="h2" sx={{ mt: 1 }}>
          Drop your 3D models here
        </Typography>
        <Typography id={hintId} color="text.secondary" sx={{ mt: 0.5, mb: 2 }}>
          STL, 3MF or OBJ · up to {formatBytes(DEFAULT_MAX_UPLOAD_BYTES)} each · several at once is fine
        </Typography>
        <Button
          variant="contained"
          size="large"
          onClick={() => inputRef.current?.click()}
          aria-describedby={hintId}
        >
          Choose files
        </Button>
        <input
          ref={inputRef}
          type="file"
          accept={UPLOAD_ACCEPT}
          multiple
          hidden
          data-testid="upload-input"
          aria-label="Choose 3D model files"
          onChange={(event) => {
            if (event.target.files) queue.addFiles(Array.from(event.target.files));
            // Let the same file be chosen again after a failure.
            event.target.value = '';
          }}
        />
      </Paper>

      {queue.items.length > 0 ? (
        <Box>
          <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', mb: 1 }}>
            <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
              Uploads
            </Typography>
            {finished ? (
              <Button size="small" onClick={queue.clearFinished}>
                Clear finished
              </Button>
            ) : null}
          </Box>
          <Stack spacing={1} component="ul" sx={{ listStyle: 'none', p: 0, m: 0 }} aria-label="Uploads">
            {queue.items.map((item) => (
              <UploadRow
                key={item.key}
                item={item}
                onCancel={() => queue.cancel(item.key)}
                onOpen={onOpenDesign}
              />
            ))}
          </Stack>
        </Box>
      ) : null}
    </Stack>
  );
}
