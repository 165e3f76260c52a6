import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import FormatQuoteIcon from '@mui/icons-material/FormatQuote';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { Reveal } from '../components/Reveal.tsx';
import { CREATOR_TESTIMONIAL } from './landing-content.ts';

/** §2: a creator's testimonial, linking out to a shop. */
export function TestimonialSection() {
  return (
    <Box
      component="section"
      aria-label="What creators say"
      data-testid="testimonial"
      sx={{ py: { xs: 6, md: 10 } }}
    >
      <Container maxWidth="md">
        <Reveal>
          <Box component="figure" sx={{ m: 0, textAlign: 'center' }}>
            <FormatQuoteIcon aria-hidden sx={{ fontSize: 56, color: 'primary.main' }} />
            <Box component="blockquote" sx={{ m: 0 }}>
              <Typography sx={{ fontSize: { xs: '1.3rem', md: '1.7rem' }, fontWeight: 600, lineHeight: 1.4 }}>
                {CREATOR_TESTIMONIAL.quote}
              </Typography>
            </Box>
            <Box component="figcaption" sx={{ mt: 3 }}>
              <Typography sx={{ fontWeight: 700 }}>{CREATOR_TESTIMONIAL.author}</Typography>
              <Typography variant="body2" color="text.secondary">
                {CREATOR_TESTIMONIAL.role}
              </Typography>
              <Link
                href={CREATOR_TESTIMONIAL.shopUrl}
                target="_blank"
                rel="noopener noreferrer"
                data-testid="testimonial-shop-link"
                sx={{
                  position: 'relative',
                  display: 'inline-flex',
                  alignItems: 'center',
                  gap: 0.5,
                  mt: 1.5,
                  fontWeight: 600,
                }}
              >
                {CREATOR_TESTIMONIAL.shopName}
                <OpenInNewIcon sx={{ fontSize: 16 }} aria-hidden />
                <Box
                  component="span"
                  sx={{
                    position: 'absolute',
                    width: '1px',
                    height: '1px',
                    overflow: 'hidden',
                    clip: 'rect(0 0 0 0)',
                    whiteSpace: 'nowrap',
                  }}
                >
                  (opens in a new tab)
                </Box>
              </Link>
            </Box>
          </Box>
        </Reveal>
      </Container>
    </Box>
  );
}
