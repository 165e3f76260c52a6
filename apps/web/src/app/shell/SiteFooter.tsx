import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { BRAND } from '@layerline/contracts';
import { BrandMark } from '../../components/BrandLogo.tsx';

const FOOTER_LINKS = [
  { label: 'Our Story', to: '/our-story' },
  { label: 'Pricing', to: '/pricing' },
  { label: 'Contact Us', to: '/contact-us' },
  { label: 'Privacy Policy', to: '/privacy-policy' },
  { label: '3D Design Handling Policy', to: '/3d-design-handling-policy' },
] as const;

/** The footer: the policy pages have no header link, so this is where visitors find them. */
export function SiteFooter() {
  return (
    <Box component="footer" sx={{ borderTop: 1, borderColor: 'divider', py: 4, mt: 'auto' }}>
      <Container
        maxWidth="lg"
        sx={{
          display: 'flex',
          flexWrap: 'wrap',
          alignItems: 'center',
          justifyContent: 'space-between',
          gap: 2,
        }}
      >
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          <BrandMark size={24} />
          <Typography variant="body2" color="text.secondary">
            © {new Date().getFullYear()} {BRAND}. Open-source print-on-demand fulfilment.
          </Typography>
        </Box>
        <Box component="nav" aria-label="Footer" sx={{ display: 'flex', flexWrap: 'wrap', gap: 2 }}>
          {FOOTER_LINKS.map((link) => (
            <Link
              key={link.to}
              component={RouterLink}
              to={link.to}
              variant="body2"
              color="text.secondary"
              underline="hover"
            >
              {link.label}
            </Link>
          ))}
        </Box>
      </Container>
    </Box>
  );
}
