import Accordion from '@mui/material/Accordion';
import AccordionDetails from '@mui/material/AccordionDetails';
import AccordionSummary from '@mui/material/AccordionSummary';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { PublicSection } from '../components/PublicSection.tsx';
import { FAQ_ITEMS } from './landing-content.ts';

/** §2: frequently asked questions as accordions. */
export function FaqSection() {
  return (
    <PublicSection id="faq" eyebrow="FAQ" title="Questions sellers ask us" tinted testId="faq">
      <Box sx={{ maxWidth: 860 }}>
        {FAQ_ITEMS.map((item, index) => (
          <Accordion
            key={item.question}
            disableGutters
            elevation={0}
            sx={{
              border: 1,
              borderColor: 'divider',
              '&:not(:last-of-type)': { borderBottom: 0 },
              '&::before': { display: 'none' },
            }}
          >
            <AccordionSummary
              expandIcon={<ExpandMoreIcon />}
              id={`faq-${index}-question`}
              aria-controls={`faq-${index}-answer`}
            >
              <Typography component="h3" sx={{ fontWeight: 600 }}>
                {item.question}
              </Typography>
            </AccordionSummary>
            <AccordionDetails id={`faq-${index}-answer`}>
              <Typography color="text.secondary">{item.answer}</Typography>
            </AccordionDetails>
          </Accordion>
        ))}
      </Box>
    </PublicSection>
  );
}
