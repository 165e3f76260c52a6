import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { HOW_IT_WORKS_STEPS } from '../components/how-it-works-steps.ts';
import { PublicSection } from '../components/PublicSection.tsx';
import { Reveal } from '../components/Reveal.tsx';

/** §2: upload your 3D model, link your products, start selling. */
export function ThreeStepsSection() {
  return (
    <PublicSection
      id="how-it-works"
      eyebrow="How it works"
      title="From 3D model to delivered order in three steps"
      intro="Set it up once. After that, orders flow from your shop to our printers and out to your customers without you lifting a finger."
      testId="three-steps"
    >
      <Box
        component="ol"
        sx={{
          listStyle: 'none',
          p: 0,
          m: 0,
          display: 'grid',
          gap: 3,
          gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' },
        }}
      >
        {HOW_IT_WORKS_STEPS.map((step, index) => (
          <Box component="li" key={step.id}>
            <Reveal delayMs={index * 120}>
              <Box
                sx={{
                  height: '100%',
                  p: 3.5,
                  borderRadius: 4,
                  border: 1,
                  borderColor: 'divider',
                  bgcolor: 'background.paper',
                  position: 'relative',
                }}
              >
                <Typography
                  aria-hidden
                  sx={{
                    position: 'absolute',
                    top: 12,
                    right: 20,
                    fontSize: '4rem',
                    fontWeight: 800,
                    lineHeight: 1,
                    color: 'primary.main',
                    opacity: 0.14,
                  }}
                >
                  {index + 1}
                </Typography>
                <Box
                  sx={{
                    width: 52,
                    height: 52,
                    borderRadius: 3,
                    display: 'grid',
                    placeItems: 'center',
                    bgcolor: 'primary.main',
                    color: 'primary.contrastText',
                    mb: 2.5,
                  }}
                >
                  <step.icon />
                </Box>
                <Typography variant="h5" component="h3">
                  <Box component="span" sx={{ color: 'text.secondary', fontWeight: 600, mr: 1 }}>
                    {index + 1}.
                  </Box>
                  {step.title}
                </Typography>
                <Typography color="text.secondary" sx={{ mt: 1.5 }}>
                  {step.description}
                </Typography>
              </Box>
            </Reveal>
          </Box>
        ))}
      </Box>
      <Box sx={{ mt: 4 }}>
        <Button component={RouterLink} to="/how-it-works" sx={{ fontWeight: 700 }}>
          Read how each step works →
        </Button>
      </Box>
    </PublicSection>
  );
}
