import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { materialLabel, type ColourInfo, type Swatch } from './production-format.ts';

const ANY = 'conic-gradient(#c62828, #f9a825, #2e7d32, #1e88e5, #7b1fa2, #c62828)';

/** A round colour swatch: the colour, a rainbow for "any colour", or a dashed ring when unknown. */
export function ColourDot({ swatch, size = 14 }: { swatch: Swatch; size?: number }) {
  return (
    <Box
      aria-hidden
      sx={{
        width: size,
        height: size,
        flexShrink: 0,
        borderRadius: '50%',
        border: 1,
        borderStyle: swatch.kind === 'unknown' ? 'dashed' : 'solid',
        borderColor: 'divider',
        ...(swatch.kind === 'hex' ? { bgcolor: swatch.hex } : {}),
        ...(swatch.kind === 'any' ? { background: ANY } : {}),
      }}
    />
  );
}

/** "● PLA Galaxy black": the swatch and the material with its colour's name. */
export function MaterialColour({
  material,
  colour,
  prefix = '',
}: {
  material: string;
  colour: ColourInfo;
  prefix?: string;
}) {
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center', minWidth: 0 }}>
      <ColourDot swatch={colour.swatch} />
      <Typography variant="body2" noWrap>
        {prefix}
        {materialLabel(material, colour.name)}
      </Typography>
    </Stack>
  );
}
