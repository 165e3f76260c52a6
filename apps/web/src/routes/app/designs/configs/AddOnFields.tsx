import { useId } from 'react';
import Box from '@mui/material/Box';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { ADD_ON_LABELS, ADD_ON_SERVICES, type AddOns } from '@layerline/contracts';

/** How many of each finishing service one printed unit needs. */
export function AddOnFields({ addOns, onChange }: { addOns: AddOns; onChange(addOns: AddOns): void }) {
  const idPrefix = useId();
  return (
    <Box component="fieldset" sx={{ border: 0, p: 0, m: 0, minWidth: 0 }}>
      <Typography component="legend" sx={{ fontWeight: 600, mb: 0.5 }}>
        Add-on services
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
        Quantities per printed unit; leave 0 for none.
      </Typography>
      <Box
        sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, columnGap: 2, rowGap: 1 }}
      >
        {ADD_ON_SERVICES.map((service) => (
          <Box
            key={service}
            sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 1 }}
          >
            <Typography component="label" htmlFor={`${idPrefix}-${service}`} variant="body2" sx={{ flex: 1 }}>
              {ADD_ON_LABELS[service]}
            </Typography>
            <TextField
              id={`${idPrefix}-${service}`}
              type="number"
              size="small"
              value={addOns[service]}
              onChange={(event) => {
                const quantity = event.target.value === '' ? 0 : Number(event.target.value);
                onChange({ ...addOns, [service]: Number.isFinite(quantity) ? quantity : 0 });
              }}
              slotProps={{ htmlInput: { min: 0, max: 1000, step: 1, inputMode: 'numeric' } }}
              sx={{ width: 96 }}
            />
          </Box>
        ))}
      </Box>
    </Box>
  );
}
