import Box from '@mui/material/Box';
import type { Design } from '@layerline/contracts';
import { DesignCard } from './DesignCard.tsx';

/** Cards in as many columns as fit, one on a phone. */
export function DesignGrid({
  designs,
  onOpen,
}: {
  designs: readonly Design[];
  onOpen(designId: string): void;
}) {
  return (
    <Box
      component="ul"
      aria-label="Designs"
      sx={{
        listStyle: 'none',
        p: 0,
        m: 0,
        display: 'grid',
        gap: 2,
        gridTemplateColumns: 'repeat(auto-fill, minmax(min(100%, 250px), 1fr))',
      }}
    >
      {designs.map((design) => (
        <Box component="li" key={design.id}>
          <DesignCard design={design} onOpen={onOpen} />
        </Box>
      ))}
    </Box>
  );
}
