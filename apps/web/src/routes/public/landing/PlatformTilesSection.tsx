import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { PublicSection } from '../components/PublicSection.tsx';
import { Reveal } from '../components/Reveal.tsx';
import { PLATFORM_TILES } from './landing-content.ts';

/** §2: the platforms a seller can connect, each tile accented in the platform's colour. */
export function PlatformTilesSection() {
  return (
    <PublicSection
      id="platforms"
      eyebrow="Connect your shop"
      title="Sell where your customers already shop"
      intro="Connect the marketplaces you sell on. Orders arrive on their own, and tracking numbers go back to the order when it ships."
      tinted
      testId="platform-tiles"
    >
      <Box
        component="ul"
        sx={{
          listStyle: 'none',
          p: 0,
          m: 0,
          display: 'grid',
          gap: 2.5,
          gridTemplateColumns: { xs: '1fr 1fr', md: 'repeat(4, 1fr)' },
        }}
      >
        {PLATFORM_TILES.map((tile, index) => (
          <Box component="li" key={tile.id} data-testid={`platform-${tile.id}`}>
            <Reveal delayMs={(index % 4) * 80}>
              <Box
                sx={{
                  height: '100%',
                  p: { xs: 2, sm: 2.5 },
                  borderRadius: 3,
                  border: 1,
                  borderColor: 'divider',
                  bgcolor: 'background.paper',
                  position: 'relative',
                  overflow: 'hidden',
                  '&::before': {
                    content: '""',
                    position: 'absolute',
                    inset: '0 0 auto 0',
                    height: 4,
                    bgcolor: tile.color,
                  },
                }}
              >
                <Box
                  component="img"
                  src={tile.src}
                  alt={tile.alt}
                  width={200}
                  height={80}
                  sx={{
                    display: 'block',
                    width: '100%',
                    maxWidth: 180,
                    height: 'auto',
                    borderRadius: 2,
                    border: 1,
                    borderColor: 'divider',
                  }}
                />
                <Typography variant="body2" color="text.secondary" sx={{ mt: 1.5 }}>
                  {tile.description}
                </Typography>
              </Box>
            </Reveal>
          </Box>
        ))}
      </Box>
    </PublicSection>
  );
}
