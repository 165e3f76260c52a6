import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { PageIntro } from './PageIntro.tsx';

export interface PolicySection {
  id: string;
  title: string;
  body: ReactNode;
}

/**
 * A policy page: its title and summary, a table of contents, then numbered sections. Body
 * content uses plain <p>, <ul> and <table> elements, styled here once.
 */
export function PolicyDocument({
  title,
  summary,
  lastUpdated,
  sections,
}: {
  title: string;
  summary: ReactNode;
  lastUpdated: string;
  sections: readonly PolicySection[];
}) {
  return (
    <>
      <PageIntro eyebrow="Policy" title={title}>
        {summary}
        <Typography variant="body2" color="text.secondary" sx={{ mt: 2 }}>
          Last updated {lastUpdated}
        </Typography>
      </PageIntro>
      <Container maxWidth="lg" sx={{ py: { xs: 5, md: 8 } }}>
        <Box
          sx={{
            display: 'grid',
            gap: { xs: 4, md: 8 },
            gridTemplateColumns: { xs: '1fr', md: '240px 1fr' },
            alignItems: 'start',
          }}
        >
          <Box component="nav" aria-label="On this page" sx={{ position: { md: 'sticky' }, top: { md: 24 } }}>
            <Typography variant="overline" color="text.secondary">
              On this page
            </Typography>
            <Box component="ol" sx={{ m: 0, mt: 1, pl: 2.5, '& li': { mb: 0.75 } }}>
              {sections.map((section) => (
                <li key={section.id}>
                  <Link href={`#${section.id}`} underline="hover" color="text.secondary" variant="body2">
                    {section.title}
                  </Link>
                </li>
              ))}
            </Box>
          </Box>
          <Box
            component="article"
            sx={{
              maxWidth: 760,
              '& p': { mt: 0, mb: 2, lineHeight: 1.7 },
              '& ul': { mt: 0, mb: 2, pl: 3, lineHeight: 1.7 },
              '& li': { mb: 0.75 },
              '& strong': { color: 'text.primary' },
              color: 'text.secondary',
            }}
          >
            {sections.map((section, index) => (
              <Box
                component="section"
                key={section.id}
                id={section.id}
                aria-labelledby={`${section.id}-heading`}
                sx={{ mb: 5, scrollMarginTop: 24 }}
              >
                <Typography
                  id={`${section.id}-heading`}
                  variant="h5"
                  component="h2"
                  sx={{ color: 'text.primary', mb: 1.5 }}
                >
                  {index + 1}. {section.title}
                </Typography>
                {section.body}
              </Box>
            ))}
          </Box>
        </Box>
      </Container>
    </>
  );
}
