import { useId } from 'react';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';

/** The filament colour: the browser's own colour picker behind a swatch, with the hex value beside it. */
export function ColourField({
  label,
  value,
  onChange,
  compact = false,
}: {
  label: string;
  value: string;
  onChange(colour: string): void;
  compact?: boolean;
}) {
  const id = useId();
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5 }}>
      <Box
        component="input"
        id={id}
        type="color"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-label={label}
        sx={{
          width: compact ? 36 : 44,
          height: compact ? 36 : 44,
          p: 0,
          border: 1,
          borderColor: 'divider',
          borderRadius: 1.5,
          bgcolor: 'transparent',
          cursor: 'pointer',
          flexShrink: 0,
          '&::-webkit-color-swatch-wrapper': { p: '3px' },
          '&::-webkit-color-swatch': { border: 'none', borderRadius: '6px' },
          '&::-moz-color-swatch': { border: 'none', borderRadius: '6px' },
        }}
      />
      {compact ? null : (
        <Box component="label" htmlFor={id} sx={{ cursor: 'pointer' }}>
          <Typography variant="body2" color="text.secondary">
            {label}
          </Typography>
          <Typography sx={{ fontFamily: 'monospace' }}>{value.toUpperCase()}</Typography>
        </Box>
      )}
    </Box>
  );
}
