import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import FormatQuoteIcon from '@mui/icons-material/FormatQuote';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import Skeleton from '@mui/material/Skeleton';
import { useLandingTestimonial } from '../../../api/site.ts';
import { Reveal } from '../components/Reveal.tsx';

/** §2: a creator's testimonial, linking out to a shop; the operator sets it on the admin overview. */
export function TestimonialSection() {
  const landing = useLandingTestimonial();
  // Nothing to show if the server cannot say (the rest of the page stands on its own).
  if (landing.isError) return null;
  const testimonial = landing.data?.testimonial;
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
            {testimonial ? (
              <>
                <Box component="blockquote" sx={{ m: 0 }}>
                  <Typography sx={{ fontSize: { xs: '1.3rem', md: '1.7rem' }, fontWeight: 600, lineHeight: 1.4 }}>
                    {testimonial.quote}
                  </Typography>
                </Box>
                <Box component="figcaption" sx={{ mt: 3 }}>
                  <Typography sx={{ fontWeight: 700 }}>{testimonial.author}</Typography>
                  {testimonial.byline ? (
                    <Typography variant="body2" color="text.secondary">
                      {testimonial.byline}
                    </Typography>
                  ) : null}
                  <Link
                    href={testimonial.shopUrl}
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
                    {testimonial.shopName}
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
              </>
            ) : (
              <Box aria-hidden>
                <Skeleton variant="text" sx={{ fontSize: '1.7rem' }} />
                <Skeleton variant="text" sx={{ fontSize: '1.7rem', mx: 'auto', width: '70%' }} />
                <Skeleton variant="text" sx={{ mt: 3, mx: 'auto', width: '30%' }} />
              </Box>
            )}
          </Box>
        </Reveal>
      </Container>
    </Box>
  );
}
