import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Typography from '@mui/material/Typography';
import { Reveal } from './Reveal.tsx';

export interface PublicSectionProps {
  id?: string;
  /** A short label above the title, in the accent colour. */
  eyebrow?: string;
  title: string;
  intro?: ReactNode;
  children: ReactNode;
  /** Tinted background, to separate neighbouring sections. */
  tinted?: boolean;
  /** The heading level: h2 on the landing page, where the hero owns the h1. */
  headingLevel?: 'h1' | 'h2';
  testId?: string;
}

/** One band of a public page: an optional eyebrow, a heading, an intro paragraph, then its content. */
export function PublicSection({
  id,
  eyebrow,
  title,
  intro,
  children,
  tinted,
  headingLevel = 'h2',
  testId,
}: PublicSectionProps) {
  const headingId = id ? `${id}-heading` : undefined;
  return (
    <Box
      component="section"
      id={id}
      aria-labelledby={headingId}
      data-testid={testId}
      sx={{ py: { xs: 6, md: 10 }, bgcolor: tinted ? 'action.hover' : undefined, scrollMarginTop: 16 }}
    >
      <Container maxWidth="lg">
        <Reveal>
          <Box sx={{ maxWidth: 760, mb: { xs: 4, md: 6 } }}>
            {eyebrow ? (
              <Typography
                variant="overline"
                color="primary"
                sx={{ fontWeight: 700, letterSpacing: '0.12em' }}
              >
                {eyebrow}
              </Typography>
            ) : null}
            <Typography
              id={headingId}
              variant="h3"
              component={headingLevel}
              sx={{ fontSize: { xs: '1.9rem', md: '2.6rem' } }}
            >
              {title}
            </Typography>
            {intro ? (
              <Typography color="text.secondary" sx={{ mt: 2, fontSize: { md: '1.1rem' } }}>
                {intro}
              </Typography>
            ) : null}
          </Box>
        </Reveal>
        {children}
      </Container>
    </Box>
  );
}
