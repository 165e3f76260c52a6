import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import ConstructionIcon from '@mui/icons-material/Construction';

/** Where links to parts of the site that are not built yet lead. */
export default function UnderConstructionPage() {
  return (
    <Container maxWidth="sm" sx={{ py: { xs: 8, md: 14 }, textAlign: 'center' }}>
      <Box
        aria-hidden
        sx={{
          width: 88,
          height: 88,
          mx: 'auto',
          mb: 3,
          borderRadius: 4,
          display: 'grid',
          placeItems: 'center',
          bgcolor: 'primary.main',
          color: 'primary.contrastText',
          '& svg': { fontSize: 48 },
        }}
      >
        <ConstructionIcon />
      </Box>
      <Typography variant="h3" component="h1" sx={{ fontSize: { xs: '2rem', md: '2.6rem' } }}>
        Under construction
      </Typography>
      <Typography color="text.secondary" sx={{ mt: 2, fontSize: '1.1rem' }}>
        This part of Layerline is still on the print bed. It will be here once it has cooled down and passed
        inspection. In the meantime, here is what already works:
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ mt: 4, justifyContent: 'center' }}>
        <Button component={RouterLink} to="/" variant="contained" sx={{ borderRadius: 999, px: 3 }}>
          Back to the home page
        </Button>
        <Button
          component={RouterLink}
          to="/how-it-works"
          variant="outlined"
          sx={{ borderRadius: 999, px: 3 }}
        >
          How it works
        </Button>
        <Button component={RouterLink} to="/contact-us" variant="outlined" sx={{ borderRadius: 999, px: 3 }}>
          Contact us
        </Button>
      </Stack>
    </Container>
  );
}
