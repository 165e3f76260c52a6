import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { Reveal } from '../components/Reveal.tsx';
import type { LandingItem } from './landing-content.ts';

/** A responsive grid of icon cards (production services, why us). */
export function ItemGrid({
  items,
  columns,
  testId,
}: {
  items: readonly LandingItem[];
  columns: { sm: number; md: number };
  testId: string;
}) {
  return (
    <Box
      component="ul"
      data-testid={testId}
      sx={{
        listStyle: 'none',
        p: 0,
        m: 0,
        display: 'grid',
        gap: 2.5,
        gridTemplateColumns: {
          xs: '1fr',
          sm: `repeat(${columns.sm}, 1fr)`,
          md: `repeat(${columns.md}, 1fr)`,
        },
      }}
    >
      {items.map((item, index) => (
        <Box component="li" key={item.id} data-testid={`${testId}-${item.id}`}>
          <Reveal delayMs={(index % columns.md) * 80}>
            <Box
              sx={{
                height: '100%',
                p: 3,
                borderRadius: 3,
                border: 1,
                borderColor: 'divider',
                bgcolor: 'background.paper',
                transition: 'border-color 150ms, transform 150ms',
                '&:hover': { borderColor: 'primary.main' },
              }}
            >
              <Box sx={{ color: 'primary.main', mb: 1.5, '& svg': { fontSize: 32 } }}>
                <item.icon />
              </Box>
              <Typography variant="h6" component="h3" sx={{ fontSize: '1.05rem' }}>
                {item.title}
              </Typography>
              <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                {item.description}
              </Typography>
            </Box>
          </Reveal>
        </Box>
      ))}
    </Box>
  );
}
