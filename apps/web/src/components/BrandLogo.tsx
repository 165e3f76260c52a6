import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { BRAND } from '@layerline/contracts';

/** The brand mark: three stacked print layers, the same drawing as the favicon. */
export function BrandMark({ size = 40 }: { size?: number }) {
  return (
    <Box component="svg" viewBox="0 0 32 32" aria-hidden sx={{ width: size, height: size, flexShrink: 0 }}>
      <rect width="32" height="32" rx="7" fill="#0f172a" />
      <path d="M6 22h20M8 17h16M10 12h12" stroke="#f97316" strokeWidth="3" strokeLinecap="round" />
    </Box>
  );
}

export function BrandLogo({ size = 40 }: { size?: number }) {
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25 }}>
      <BrandMark size={size} />
      <Typography
        component="span"
        sx={{ fontWeight: 800, fontSize: size * 0.6, letterSpacing: '-0.02em', color: 'text.primary' }}
      >
        {BRAND}
      </Typography>
    </Box>
  );
}
