import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { PrinterGroup } from '@layerline/contracts';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { useDeletePrinterGroup, usePrinterGroups, useSavePrinterGroup } from '../../../api/printers.ts';

/** A number as typed; an empty field is sent as null so the server names the field. */
const whole = (text: string): number | null => (text.trim() === '' ? null : Number(text));

function GroupDialog({ group, onClose }: { group: PrinterGroup | null; onClose(): void }) {
  const [name, setName] = useState(group?.name ?? '');
  const [maxStarts, setMaxStarts] = useState(String(group?.maxStarts ?? 2));
  const [perSeconds, setPerSeconds] = useState(String(group?.perSeconds ?? 60));
  const save = useSavePrinterGroup();
  const { showToast } = useToast();
  const submit = () =>
    save.mutate(
      {
        id: group?.id ?? null,
        input: { name, maxStarts: whole(maxStarts), perSeconds: whole(perSeconds) } as never,
      },
      {
        onSuccess: (saved) => {
          showToast(`${saved.name} saved`);
          onClose();
        },
      },
    );
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth aria-labelledby="group-dialog-title">
      <DialogTitle id="group-dialog-title">{group ? `Edit ${group.name}` : 'Add a power group'}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {save.error ? <Alert severity="error">{save.error.message}</Alert> : null}
          <TextField
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            size="small"
            autoFocus
          />
          <Stack direction="row" spacing={1}>
            <TextField
              label="Starts at most"
              type="number"
              value={maxStarts}
              onChange={(e) => setMaxStarts(e.target.value)}
              size="small"
            />
            <TextField
              label="Per seconds"
              type="number"
              value={perSeconds}
              onChange={(e) => setPerSeconds(e.target.value)}
              size="small"
            />
          </Stack>
          <Typography variant="body2" color="text.secondary">
            Heating beds draw the most power: printers on one circuit start at most this many prints in any
            such window.
          </Typography>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={save.isPending}>
          Cancel
        </Button>
        <Button variant="contained" onClick={submit} disabled={save.isPending}>
          {group ? 'Save' : 'Add group'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** The printers page's "Power groups": circuits whose printers' starts are staggered. */
export function PowerGroups() {
  const groups = usePrinterGroups();
  const remove = useDeletePrinterGroup();
  const { showToast } = useToast();
  const [editing, setEditing] = useState<PrinterGroup | 'new' | null>(null);
  const [deleting, setDeleting] = useState<PrinterGroup | null>(null);
  return (
    <Paper component="section" variant="outlined" sx={{ p: 2, mt: 3 }} aria-labelledby="power-groups-title">
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 1 }}>
        <Typography id="power-groups-title" variant="h6" component="h2">
          Power groups
        </Typography>
        <Button size="small" variant="outlined" onClick={() => setEditing('new')}>
          Add group
        </Button>
      </Stack>
      {groups.error ? <Alert severity="error">{groups.error.message}</Alert> : null}
      {groups.data?.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          No groups: every printer starts as soon as it is ready. Group printers that share a circuit.
        </Typography>
      ) : null}
      <Stack spacing={1}>
        {(groups.data ?? []).map((group) => (
          <Stack
            key={group.id}
            direction="row"
            spacing={1}
            data-testid={`power-group-${group.name}`}
            sx={{ alignItems: 'center', justifyContent: 'space-between' }}
          >
            <Typography variant="body2">
              <strong>{group.name}</strong>: at most {group.maxStarts} start{group.maxStarts === 1 ? '' : 's'}{' '}
              per {group.perSeconds} s · {group.printerCount} printer{group.printerCount === 1 ? '' : 's'}
            </Typography>
            <Stack direction="row" spacing={0.5}>
              <Button size="small" onClick={() => setEditing(group)}>
                Edit
              </Button>
              <Button size="small" color="error" onClick={() => setDeleting(group)}>
                Delete
              </Button>
            </Stack>
          </Stack>
        ))}
      </Stack>
      {editing !== null ? (
        <GroupDialog
          key={editing === 'new' ? 'new' : editing.id}
          group={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
        />
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this power group?"
        confirmLabel="Delete"
        busy={remove.isPending}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting.id, {
            onSuccess: () => showToast(`${deleting.name} deleted`),
            onError: (error) => showToast(error.message, 'error'),
            onSettled: () => setDeleting(null),
          })
        }
        onCancel={() => setDeleting(null)}
      >
        {deleting
          ? `Its ${deleting.printerCount} printer${deleting.printerCount === 1 ? '' : 's'} stay, in no group: their starts are no longer staggered.`
          : null}
      </ConfirmDialog>
    </Paper>
  );
}
