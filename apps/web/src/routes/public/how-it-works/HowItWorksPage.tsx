import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { CallToActionBand } from '../components/CallToActionBand.tsx';
import { ChecklistCard } from '../components/ChecklistCard.tsx';
import { HOW_IT_WORKS_STEPS } from '../components/how-it-works-steps.ts';
import { PageIntro } from '../components/PageIntro.tsx';
import { PublicSection } from '../components/PublicSection.tsx';
import { QUOTE_EXCLUDES, QUOTE_INCLUDES } from '../components/quote-contents.ts';
import { Reveal } from '../components/Reveal.tsx';
import { ORDER_JOURNEY } from './order-journey.ts';

/** What each step involves, in more depth than the landing page. */
const STEP_DETAILS: Record<string, readonly string[]> = {
  upload: [
    'Upload STL, 3MF or OBJ files from your dashboard. Designs in several parts can be uploaded together and marked as multipart.',
    'We analyse the model: its size, whether it fits our printers, and how much filament it needs in the material you choose.',
    'You get a quote per item before anything is printed, and you can change the filament to compare.',
  ],
  link: [
    'Group designs into products, with a variant for each colour or material you sell, and give each variant its SKU.',
    'Connect your shop (Etsy, Shopify, WooCommerce, eBay, Amazon, Walmart, TikTok Shop, or our API) and match listings to products by SKU.',
    'Store a card for fulfilment charges. Nothing is charged at this point.',
  ],
  sell: [
    'Keep selling the way you do now. Orders for linked listings come to us as they are placed.',
    'You can also submit an order by hand, for a sale made at a market or by message.',
    'Your fulfilment history shows every order we printed and shipped for you, with its tracking number.',
  ],
};

export default function HowItWorksPage() {
  return (
    <>
      <PageIntro eyebrow="How it works" title="How Layerline turns your designs into delivered orders">
        Three steps to set up, then every order is printed, packed and shipped for you. Here is what happens
        at each step, what your quote covers, and what we do when an order comes in.
      </PageIntro>

      <PublicSection id="steps" eyebrow="Set up once" title="The three steps">
        <Box sx={{ display: 'grid', gap: 3 }}>
          {HOW_IT_WORKS_STEPS.map((step, index) => (
            <Reveal key={step.id}>
              <Box
                component="article"
                aria-labelledby={`step-${step.id}`}
                sx={{
                  display: 'grid',
                  gridTemplateColumns: { xs: '1fr', md: '280px 1fr' },
                  gap: { xs: 2, md: 4 },
                  p: { xs: 2.5, md: 4 },
                  borderRadius: 4,
                  border: 1,
                  borderColor: 'divider',
                  bgcolor: 'background.paper',
                }}
              >
                <Box>
                  <Box
                    sx={{
                      width: 52,
                      height: 52,
                      borderRadius: 3,
                      display: 'grid',
                      placeItems: 'center',
                      bgcolor: 'primary.main',
                      color: 'primary.contrastText',
                      mb: 2,
                    }}
                  >
                    <step.icon />
                  </Box>
                  <Typography variant="overline" color="text.secondary">
                    Step {index + 1}
                  </Typography>
                  <Typography id={`step-${step.id}`} variant="h5" component="h3">
                    {step.title}
                  </Typography>
                </Box>
                <Box>
                  <Typography sx={{ fontSize: '1.05rem' }}>{step.description}</Typography>
                  <Box
                    component="ul"
                    sx={{ mt: 2, mb: 0, pl: 2.5, color: 'text.secondary', '& li': { mb: 1 } }}
                  >
                    {(STEP_DETAILS[step.id] ?? []).map((detail) => (
                      <li key={detail}>{detail}</li>
                    ))}
                  </Box>
                </Box>
              </Box>
            </Reveal>
          ))}
        </Box>
      </PublicSection>

      <PublicSection
        id="quote"
        eyebrow="Your quote"
        title="What a quote includes"
        intro="A quote is the price per item of printing and fulfilling one design in one filament. It is what you pay when that item sells."
        tinted
      >
        <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
          <Reveal>
            <ChecklistCard title="Included" items={QUOTE_INCLUDES} />
          </Reveal>
          <Reveal delayMs={100}>
            <ChecklistCard title="Not included" items={QUOTE_EXCLUDES} excluded />
          </Reveal>
        </Box>
      </PublicSection>

      <PublicSection
        id="when-an-order-arrives"
        eyebrow="Every order"
        title="What happens when an order arrives"
        intro="From the moment a customer buys to the moment you are charged, this is the path every order takes."
      >
        <Box component="ol" sx={{ listStyle: 'none', p: 0, m: 0, position: 'relative' }}>
          {ORDER_JOURNEY.map((stage, index) => (
            <Box
              component="li"
              key={stage.id}
              sx={{
                display: 'flex',
                gap: 2.5,
                pb: index === ORDER_JOURNEY.length - 1 ? 0 : 3.5,
                position: 'relative',
              }}
            >
              {index < ORDER_JOURNEY.length - 1 ? (
                <Box
                  aria-hidden
                  sx={{ position: 'absolute', left: 23, top: 52, bottom: 4, width: 2, bgcolor: 'divider' }}
                />
              ) : null}
              <Box
                sx={{
                  width: 48,
                  height: 48,
                  flexShrink: 0,
                  borderRadius: '50%',
                  display: 'grid',
                  placeItems: 'center',
                  border: 2,
                  borderColor: 'primary.main',
                  color: 'primary.main',
                  bgcolor: 'background.default',
                }}
              >
                <stage.icon />
              </Box>
              <Reveal>
                <Box sx={{ pt: 1 }}>
                  <Typography variant="h6" component="h3">
                    {stage.title}
                  </Typography>
                  <Typography color="text.secondary" sx={{ mt: 0.5, maxWidth: 720 }}>
                    {stage.description}
                  </Typography>
                </Box>
              </Reveal>
            </Box>
          ))}
        </Box>
      </PublicSection>

      <CallToActionBand
        title="Upload your first model"
        body="It takes a few minutes to sign up and see your quote. Nothing is charged until you sell."
      />
    </>
  );
}
