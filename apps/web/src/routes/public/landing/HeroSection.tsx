import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Container from '@mui/material/Container';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import ArrowForwardIcon from '@mui/icons-material/ArrowForward';
import { HeroVideo } from './HeroVideo.tsx';
import { LaunchCountdown } from './LaunchCountdown.tsx';

/** The first screen: what Layerline is, the way in, and the hero video. */
export function HeroSection() {
  return (
    <Box
      component="section"
      aria-labelledby="hero-heading"
      sx={{
        pt: { xs: 5, md: 9 },
        pb: { xs: 6, md: 10 },
        background: (theme) =>
          theme.palette.mode === 'dark'
            ? 'radial-gradient(1100px 520px at 80% 20%, rgba(249,115,22,0.16), transparent 65%)'
            : 'radial-gradient(1100px 520px at 80% 20%, rgba(249,115,22,0.12), transparent 65%)',
      }}
    >
      <Container maxWidth="lg">
        <Box
          sx={{
            display: 'grid',
            gap: { xs: 5, md: 6 },
            gridTemplateColumns: { xs: '1fr', md: '5fr 6fr' },
            alignItems: 'center',
          }}
        >
          <Box>
            <Chip
              label="Open source · Self-hostable · Free to use"
              color="primary"
              variant="outlined"
              size="small"
              sx={{ mb: 2.5, fontWeight: 600 }}
            />
            <Typography
              id="hero-heading"
              variant="h1"
              sx={{ fontSize: { xs: '2.4rem', sm: '3rem', md: '3.6rem' }, lineHeight: 1.05 }}
            >
              You design it.{' '}
              <Box component="span" sx={{ color: 'primary.main' }}>
                We print, pack and ship it.
              </Box>
            </Typography>
            <Typography
              color="text.secondary"
              sx={{ mt: 2.5, fontSize: { xs: '1.05rem', md: '1.2rem' }, maxWidth: 540 }}
            >
              Layerline is print-on-demand 3D printing for online sellers. Link your shop, upload your models,
              and every order is printed and delivered for you. 100% free to use, with no paywalls or
              recurring fees: you pay only when you sell.
            </Typography>
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ mt: 4 }}>
              <Button
                component={RouterLink}
                to="/get-started"
                variant="contained"
                size="large"
                endIcon={<ArrowForwardIcon />}
                sx={{ borderRadius: 999, px: 4, py: 1.4, fontSize: '1.05rem' }}
              >
                Get Started
              </Button>
              <Button
                component={RouterLink}
                to="/how-it-works"
                variant="outlined"
                size="large"
                sx={{ borderRadius: 999, px: 4, py: 1.4, fontSize: '1.05rem' }}
              >
                How it works
              </Button>
            </Stack>
            <Box sx={{ mt: 4 }}>
              <LaunchCountdown />
            </Box>
          </Box>
          <HeroVideo />
        </Box>
      </Container>
    </Box>
  );
}
