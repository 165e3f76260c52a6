import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import Radio from '@mui/material/Radio';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { SPOOL_MATERIALS, type Printer, type PrinterSpool } from '@layerline/contracts';
import { useSetPrinterSpools } from '../../../api/printers.ts';

interface SpoolRow extends Omit<PrinterSpool, 'gramsLeft'> {
  gramsLeft: string;
}

/**
 * The spools beside a printer: material, colour, grams left, and which one is loaded. Mounted per
 * printer (the page renders it with `key`), so its rows start from that printer's spools.
 */
export function SpoolsDialog({ printer, onClose }: { printer: Printer; onClose(): void }) {
  const [rows, setRows] = useState<SpoolRow[]>(() =>
    printer.spools.map((s) => ({ ...s, gramsLeft: String(s.gramsLeft) })),
  );
  const save = useSetPrinterSpools();

  const change = (index: number, patch: Partial<SpoolRow>) =>
    setRows((current) => current.map((row, i) => (i === index ? { ...row, ...patch } : row)));

  const submit = () => {
    // An empty or unreadable number is sent as null: the server answers "Enter the grams left".
    const spools = rows.map((row) => {
      const grams = row.gramsLeft.trim() === '' ? Number.NaN : Number(row.gramsLeft);
      return { ...row, gramsLeft: (Number.isFinite(grams) ? grams : null) as number };
    });
    save.mutate({ id: printer.id, input: { spools } }, { onSuccess: onClose });
  };

  return (
    <Dialog open onClose={onClose} maxWidth="md" fullWidth aria-labelledby="spools-dialog-title">
      <DialogTitle id="spools-dialog-title">Spools of {printer.name}</DialogTitle>
      <DialogContent>
        <Stack spacing={1.5} sx={{ pt: 1 }}>
          {save.error ? <Alert severity="error">{save.error.message}</Alert> : null}
          {rows.length === 0 ? <Typography color="text.secondary">No spools yet.</Typography> : null}
          {rows.map((row, index) => (
            <Stack key={index} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <Radio
                checked={row.loaded}
                onChange={() => setRows((current) => current.map((r, i) => ({ ...r, loaded: i === index })))}
                slotProps={{ input: { 'aria-label': `Spool ${index + 1} is loaded` } }}
              />
              <TextField
                select
                size="small"
                label="Material"
                value={row.material}
                onChange={(event) =>
                  change(index, { material: event.target.value as PrinterSpool['material'] })
                }
                sx={{ minWidth: 110 }}
              >
                {SPOOL_MATERIALS.map((m) => (
                  <MenuItem key={m} value={m}>
                    {m}
                  </MenuItem>
                ))}
              </TextField>
              <TextField
                size="small"
                label="Colour"
                value={row.colourName}
                onChange={(event) => change(index, { colourName: event.target.value })}
              />
              <TextField
                size="small"
                type="color"
                label="Hex"
                value={row.colourHex}
                onChange={(event) => change(index, { colourHex: event.target.value })}
                sx={{ width: 80 }}
              />
              <TextField
                size="small"
                type="number"
                label="Grams left"
                value={row.gramsLeft}
                onChange={(event) => change(index, { gramsLeft: event.target.value })}
                sx={{ width: 120 }}
              />
              <IconButton
                aria-label={`Remove spool ${index + 1}`}
                onClick={() => setRows((current) => current.filter((_, i) => i !== index))}
              >
                <DeleteOutlineIcon />
              </IconButton>
            </Stack>
          ))}
          <Button
            onClick={() =>
              setRows((current) => [
                ...current,
                {
                  material: 'PLA',
                  colourName: '',
                  colourHex: '#9e9e9e',
                  gramsLeft: '1000',
                  loaded: current.length === 0,
                },
              ])
            }
            sx={{ alignSelf: 'flex-start' }}
          >
            Add spool
          </Button>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={save.isPending}>
          Cancel
        </Button>
        <Button variant="contained" onClick={submit} disabled={save.isPending}>
          Save spools
        </Button>
      </DialogActions>
    </Dialog>
  );
}
