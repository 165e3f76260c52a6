import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Typography from '@mui/material/Typography';

/** The top of an inner public page: its h1 and one or two sentences on what the page covers. */
export function PageIntro({
  eyebrow,
  title,
  children,
}: {
  eyebrow?: string;
  title: string;
  children?: ReactNode;
}) {
  return (
    <Box
      sx={{
        pt: { xs: 6, md: 9 },
        pb: { xs: 4, md: 6 },
        borderBottom: 1,
        borderColor: 'divider',
        background: (theme) =>
          `radial-gradient(900px 320px at 15% 0%, ${theme.palette.mode === 'dark' ? 'rgba(249,115,22,0.14)' : 'rgba(249,115,22,0.10)'}, transparent 70%)`,
      }}
    >
      <Container maxWidth="lg">
        {eyebrow ? (
          <Typography variant="overline" color="primary" sx={{ fontWeight: 700, letterSpacing: '0.12em' }}>
            {eyebrow}
          </Typography>
        ) : null}
        <Typography
          variant="h2"
          component="h1"
          sx={{ fontSize: { xs: '2.2rem', md: '3.2rem' }, maxWidth: 860 }}
        >
          {title}
        </Typography>
        {children ? (
          <Typography
            component="div"
            color="text.secondary"
            sx={{ mt: 2, maxWidth: 760, fontSize: { md: '1.15rem' } }}
          >
            {children}
          </Typography>
        ) : null}
      </Container>
    </Box>
  );
}
