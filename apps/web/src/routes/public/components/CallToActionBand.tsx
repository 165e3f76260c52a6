import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Reveal } from './Reveal.tsx';

/** The closing call to action of a public page: one sentence, then Get Started and a second way in. */
export function CallToActionBand({
  title = 'Ready to sell without running the printers?',
  body = 'Create a free account, upload your first model and see your quote. You pay only when an order comes in.',
  secondary = { label: 'See pricing', to: '/pricing' },
}: {
  title?: string;
  body?: string;
  secondary?: { label: string; to: string };
}) {
  return (
    <Box
      component="section"
      aria-labelledby="closing-cta-heading"
      data-testid="closing-cta"
      sx={{ py: { xs: 6, md: 10 } }}
    >
      <Container maxWidth="lg">
        <Reveal>
          <Box
            sx={{
              borderRadius: 4,
              px: { xs: 3, md: 8 },
              py: { xs: 5, md: 7 },
              textAlign: 'center',
              color: '#fff',
              background: 'linear-gradient(135deg, #c2410c 0%, #f97316 55%, #fb923c 100%)',
              boxShadow: '0 24px 60px -24px rgba(249,115,22,0.55)',
            }}
          >
            <Typography
              id="closing-cta-heading"
              variant="h3"
              component="h2"
              sx={{ fontSize: { xs: '1.8rem', md: '2.5rem' } }}
            >
              {title}
            </Typography>
            <Typography sx={{ mt: 2, mx: 'auto', maxWidth: 620, fontSize: { md: '1.1rem' }, opacity: 0.95 }}>
              {body}
            </Typography>
            <Stack
              direction={{ xs: 'column', sm: 'row' }}
              spacing={2}
              sx={{ mt: 4, justifyContent: 'center' }}
            >
              <Button
                component={RouterLink}
                to="/get-started"
                size="large"
                variant="contained"
                sx={{
                  bgcolor: '#0b1120',
                  color: '#fff',
                  borderRadius: 999,
                  px: 4,
                  '&:hover': { bgcolor: '#1e293b' },
                }}
              >
                Get Started
              </Button>
              <Button
                component={RouterLink}
                to={secondary.to}
                size="large"
                variant="outlined"
                sx={{
                  color: '#fff',
                  borderColor: 'rgba(255,255,255,0.7)',
                  borderRadius: 999,
                  px: 4,
                  '&:hover': { borderColor: '#fff', bgcolor: 'rgba(255,255,255,0.08)' },
                }}
              >
                {secondary.label}
              </Button>
            </Stack>
          </Box>
        </Reveal>
      </Container>
    </Box>
  );
}
