import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Typography from '@mui/material/Typography';
import CodeIcon from '@mui/icons-material/Code';
import LockIcon from '@mui/icons-material/Lock';
import SavingsIcon from '@mui/icons-material/Savings';
import VerifiedIcon from '@mui/icons-material/Verified';
import { CallToActionBand } from '../components/CallToActionBand.tsx';
import { PageIntro } from '../components/PageIntro.tsx';
import { PublicSection } from '../components/PublicSection.tsx';
import { Reveal } from '../components/Reveal.tsx';

const CHAPTERS = [
  {
    id: 'makers',
    title: 'We started as sellers',
    paragraphs: [
      'Before Layerline was software, it was a workshop full of printers and a shop on Etsy. Over more than a decade we printed, packed and shipped our own designs, learned which materials survive the post, and earned Etsy’s star seller badge along the way.',
      'Running the printers taught us where the time goes: not in designing, but in babysitting prints, re-running failures, cutting boxes and copying tracking numbers.',
    ],
  },
  {
    id: 'creators',
    title: 'Then creators asked us to print for them',
    paragraphs: [
      'Designers we knew had great models and growing shops but no wish to run a print farm. So we started printing their orders: same printers, same care, their products, shipped to their customers.',
      'That is how we came to work with hundreds of creators, and how the tools we built for ourselves became a service for them.',
    ],
  },
  {
    id: 'open',
    title: 'Now it is open source',
    paragraphs: [
      'Layerline is the software that runs that service: shops connected, orders matched to designs, prints quoted and queued, labels bought, tracking sent back. We publish it as open source so any print farm can run it for its own sellers, on its own servers.',
      'If you sell on this site, you are using one of those print farms. If you run printers yourself, you can host Layerline too.',
    ],
  },
] as const;

const PRINCIPLES = [
  {
    id: 'pay',
    title: 'You pay only when you sell',
    body: 'No subscription, no setup fee, no paywall. We earn when we fulfil an order, so we only do well when you do.',
    icon: SavingsIcon,
  },
  {
    id: 'designs',
    title: 'Your designs stay yours',
    body: 'Files are seen by you and the print farm’s admins only, used to quote and print your orders, never shared or sold.',
    icon: LockIcon,
  },
  {
    id: 'quality',
    title: 'Quality we would sell ourselves',
    body: 'Every part is checked and packed the way we packed our own orders as an Etsy star seller, and shipped worldwide.',
    icon: VerifiedIcon,
  },
  {
    id: 'open',
    title: 'Open and self-hostable',
    body: 'The code is public. You can read how your orders are handled, and any print farm can run it.',
    icon: CodeIcon,
  },
] as const;

export default function OurStoryPage() {
  return (
    <>
      <PageIntro eyebrow="Our story" title="Built by a print farm, for the people who design">
        Layerline grew out of over a decade of printing and selling our own work. Today it prints, packs and
        ships for creators all over the world, and it is open source.
      </PageIntro>

      <Box component="section" aria-label="How Layerline came to be" sx={{ py: { xs: 6, md: 9 } }}>
        <Container maxWidth="md">
          {CHAPTERS.map((chapter, index) => (
            <Reveal key={chapter.id}>
              <Box
                component="article"
                sx={{
                  display: 'grid',
                  gridTemplateColumns: { xs: '1fr', sm: '72px 1fr' },
                  gap: { xs: 1, sm: 3 },
                  mb: index === CHAPTERS.length - 1 ? 0 : 6,
                }}
              >
                <Typography
                  aria-hidden
                  sx={{ fontSize: '3rem', fontWeight: 800, lineHeight: 1, color: 'primary.main' }}
                >
                  {String(index + 1).padStart(2, '0')}
                </Typography>
                <Box>
                  <Typography variant="h4" component="h2" sx={{ fontSize: { xs: '1.6rem', md: '2rem' } }}>
                    {chapter.title}
                  </Typography>
                  {chapter.paragraphs.map((paragraph) => (
                    <Typography
                      key={paragraph}
                      color="text.secondary"
                      sx={{ mt: 2, fontSize: '1.08rem', lineHeight: 1.7 }}
                    >
                      {paragraph}
                    </Typography>
                  ))}
                </Box>
              </Box>
            </Reveal>
          ))}
        </Container>
      </Box>

      <PublicSection id="principles" eyebrow="What we stand for" title="Four promises we keep" tinted>
        <Box
          sx={{
            display: 'grid',
            gap: 2.5,
            gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', md: 'repeat(4, 1fr)' },
          }}
        >
          {PRINCIPLES.map((principle, index) => (
            <Reveal key={principle.id} delayMs={index * 80}>
              <Box
                sx={{
                  height: '100%',
                  p: 3,
                  borderRadius: 3,
                  border: 1,
                  borderColor: 'divider',
                  bgcolor: 'background.paper',
                }}
              >
                <Box sx={{ color: 'primary.main', '& svg': { fontSize: 32 } }}>
                  <principle.icon />
                </Box>
                <Typography variant="h6" component="h3" sx={{ mt: 1.5, fontSize: '1.05rem' }}>
                  {principle.title}
                </Typography>
                <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                  {principle.body}
                </Typography>
              </Box>
            </Reveal>
          ))}
        </Box>
      </PublicSection>

      <CallToActionBand
        title="Let us print for you"
        body="Join the creators who sell 3D-printed products without running a single printer."
        secondary={{ label: 'How it works', to: '/how-it-works' }}
      />
    </>
  );
}
