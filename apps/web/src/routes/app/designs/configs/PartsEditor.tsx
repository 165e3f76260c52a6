import Box from '@mui/material/Box';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { FILAMENT_TYPES, type FilamentType, type PartConfig } from '@layerline/contracts';
import { ColourField } from './ColourField.tsx';

/** A row per part of a multi-part print: its name, filament and colour. */
export function PartsEditor({
  parts,
  onChange,
}: {
  parts: readonly PartConfig[];
  onChange(parts: PartConfig[]): void;
}) {
  function changePart(index: number, patch: Partial<PartConfig>) {
    onChange(parts.map((part, i) => (i === index ? { ...part, ...patch } : part)));
  }
  return (
    <Box
      component="ol"
      sx={{ listStyle: 'none', p: 0, m: 0, mt: 1.5, display: 'flex', flexDirection: 'column', gap: 1.25 }}
      aria-label="Parts"
      data-testid="parts-editor"
    >
      {parts.map((part, index) => (
        <Box
          component="li"
          // Parts have no id of their own; their position is their identity (part 1 is the first object).
          key={index}
          sx={{
            display: 'grid',
            gridTemplateColumns: { xs: '1fr auto', sm: 'minmax(0, 1fr) 140px auto' },
            gap: 1,
            alignItems: 'center',
          }}
        >
          <TextField
            size="small"
            label={`Part ${index + 1} name`}
            value={part.name}
            onChange={(event) => changePart(index, { name: event.target.value })}
            error={!part.name.trim()}
            slotProps={{ htmlInput: { maxLength: 120 } }}
            sx={{ gridColumn: { xs: '1 / -1', sm: 'auto' } }}
          />
          <TextField
            select
            size="small"
            label="Filament"
            value={part.filament}
            onChange={(event) => changePart(index, { filament: event.target.value as FilamentType })}
          >
            {FILAMENT_TYPES.map((filament) => (
              <MenuItem key={filament} value={filament}>
                {filament}
              </MenuItem>
            ))}
          </TextField>
          <ColourField
            compact
            label={`Part ${index + 1} colour`}
            value={part.colour}
            onChange={(colour) => changePart(index, { colour })}
          />
        </Box>
      ))}
    </Box>
  );
}
