import { useState } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import type { Design } from '@layerline/contracts';
import { useRenameDesign } from '../../../../api/designs.ts';
import { useToast } from '../../../../app/toast/ToastProvider.tsx';

/** The design's name as the dialog's title, renamed in place (Enter saves, Escape cancels). */
export function DesignNameEditor({ design, titleId }: { design: Design; titleId: string }) {
  const { showToast } = useToast();
  const rename = useRenameDesign();
  const [editing, setEditing] = useState<string | null>(null);

  if (editing === null) {
    return (
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5, minWidth: 0 }}>
        <Typography
          id={titleId}
          variant="h5"
          component="h2"
          sx={{ fontWeight: 700, overflowWrap: 'anywhere' }}
          data-testid="design-name"
        >
          {design.name}
        </Typography>
        <Tooltip title="Rename">
          <IconButton size="small" onClick={() => setEditing(design.name)} aria-label="Rename design">
            <EditOutlinedIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      </Box>
    );
  }

  const name = editing.trim();
  const valid = name.length > 0 && name.length <= 200;
  function save() {
    if (!valid) return;
    if (name === design.name) {
      setEditing(null);
      return;
    }
    rename.mutate(
      { designId: design.id, name },
      {
        onSuccess: (next) => {
          setEditing(null);
          showToast(`Renamed to “${next.name}”`);
        },
        onError: (error) => showToast(error.message, 'error'),
      },
    );
  }

  return (
    <Box
      component="form"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
      sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', flexWrap: 'wrap' }}
    >
      <span id={titleId} hidden>
        Rename {design.name}
      </span>
      <TextField
        autoFocus
        size="small"
        label="Design name"
        value={editing}
        onChange={(event) => setEditing(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.stopPropagation();
            setEditing(null);
          }
        }}
        error={!valid}
        helperText={!valid ? 'Between 1 and 200 characters' : undefined}
        slotProps={{ htmlInput: { maxLength: 200 } }}
        sx={{ flex: '1 1 240px' }}
      />
      <Button type="submit" variant="contained" disabled={!valid || rename.isPending}>
        Save
      </Button>
      <Button onClick={() => setEditing(null)} disabled={rename.isPending}>
        Cancel
      </Button>
    </Box>
  );
}
