import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import CloudUploadOutlinedIcon from '@mui/icons-material/CloudUploadOutlined';
import LinkIcon from '@mui/icons-material/Link';
import LocalShippingOutlinedIcon from '@mui/icons-material/LocalShippingOutlined';
import { AuthCard } from '../AuthCard.tsx';
import { RegisterForm } from '../register/RegisterForm.tsx';

const STEPS = [
  {
    icon: <CloudUploadOutlinedIcon />,
    title: 'Upload your 3D model',
    body: 'STL, 3MF or OBJ. We quote the print from the model itself.',
  },
  {
    icon: <LinkIcon />,
    title: 'Link your products',
    body: 'Connect your shop and match listings to designs by SKU.',
  },
  {
    icon: <LocalShippingOutlinedIcon />,
    title: 'Start selling',
    body: 'Orders arrive, we print, pack and ship under your brand.',
  },
] as const;

/** The onboarding intro: what happens after sign-up, next to the sign-up form itself. */
export default function GetStartedPage() {
  return (
    <Container maxWidth="lg" sx={{ py: { xs: 4, md: 8 } }}>
      <Box
        sx={{
          display: 'grid',
          gridTemplateColumns: { xs: '1fr', md: '1.1fr 1fr' },
          gap: { xs: 5, md: 8 },
          alignItems: 'center',
        }}
      >
        <Box>
          <Typography variant="overline" color="primary" sx={{ fontWeight: 700, letterSpacing: '0.12em' }}>
            Get started
          </Typography>
          <Typography variant="h3" component="h1" sx={{ fontSize: { xs: '2rem', md: '2.75rem' }, mt: 1 }}>
            Your products, printed and shipped while you sleep.
          </Typography>
          <Typography color="text.secondary" sx={{ mt: 2, fontSize: '1.1rem' }}>
            Layerline is free to use: no subscription, no paywalls. We only earn when we fulfil one of your
            orders.
          </Typography>
          <Stack
            spacing={2.5}
            sx={{ mt: 4 }}
            component="ol"
            aria-label="How it works"
            style={{ listStyle: 'none', padding: 0 }}
          >
            {STEPS.map((step, index) => (
              <Box component="li" key={step.title} sx={{ display: 'flex', gap: 2, alignItems: 'flex-start' }}>
                <Box
                  sx={{
                    width: 44,
                    height: 44,
                    borderRadius: 2.5,
                    flexShrink: 0,
                    display: 'grid',
                    placeItems: 'center',
                    bgcolor: 'action.hover',
                    color: 'primary.main',
                  }}
                >
                  {step.icon}
                </Box>
                <Box>
                  <Typography sx={{ fontWeight: 700 }}>
                    {index + 1}. {step.title}
                  </Typography>
                  <Typography color="text.secondary">{step.body}</Typography>
                </Box>
              </Box>
            ))}
          </Stack>
        </Box>
        <AuthCard
          title="Create your free account"
          subtitle="It takes under a minute."
          footer={
            <>
              Already have an account?{' '}
              <Link component={RouterLink} to="/login">
                Log in
              </Link>
            </>
          }
        >
          <RegisterForm />
        </AuthCard>
      </Box>
    </Container>
  );
}
