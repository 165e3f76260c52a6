import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import {
  CALCULATOR,
  FILAMENT_RATE_USD_PER_GRAM,
  FULFILMENT_USD_PER_GRAM,
  fulfilmentCostUsd,
  monthlyEarningsUsd,
} from '@layerline/contracts';
import { CallToActionBand } from '../components/CallToActionBand.tsx';
import { ChecklistCard } from '../components/ChecklistCard.tsx';
import { PageIntro } from '../components/PageIntro.tsx';
import { PublicSection } from '../components/PublicSection.tsx';
import { QUOTE_EXCLUDES, QUOTE_INCLUDES } from '../components/quote-contents.ts';
import { Reveal } from '../components/Reveal.tsx';
import { PRODUCTION_SERVICES } from '../landing/landing-content.ts';
import { formatUsd } from '../landing/calculator.ts';
import { EXAMPLE_GRAMS, formatPerGram, priceRows } from './price-table.ts';

/** Services beyond the print itself, which are priced per design (§9 gives no price for them). */
const ADD_ON_SERVICE_IDS = [
  'multicolor',
  'gluing',
  'threaded-inserts',
  'fasteners',
  'magnets',
  'electronics',
  'packaging',
  'assembly',
  'production-runs',
];

export default function PricingPage() {
  const rows = priceRows();
  const pla = FILAMENT_RATE_USD_PER_GRAM.PLA;
  const plaExample = fulfilmentCostUsd('PLA', EXAMPLE_GRAMS);
  const addOns = PRODUCTION_SERVICES.filter((service) => ADD_ON_SERVICE_IDS.includes(service.id));

  return (
    <>
      <PageIntro eyebrow="Pricing" title="Pay per gram, only when you sell">
        Layerline is 100% free to use, with no paywalls or recurring fees. Each item you sell costs the
        filament it uses plus a flat fulfilment charge, both per gram. That is the whole price list.
      </PageIntro>

      <PublicSection
        id="rates"
        eyebrow="Rates"
        title="Price per gram, by filament"
        intro={`Every item costs its filament rate plus ${formatPerGram(FULFILMENT_USD_PER_GRAM)} per gram for fulfilment: printing, finishing, packing and dispatch.`}
      >
        <Reveal>
          <TableContainer
            sx={{ borderRadius: 4, border: 1, borderColor: 'divider', bgcolor: 'background.paper' }}
          >
            <Table
              aria-label="Price per gram by filament"
              data-testid="price-table"
              sx={{
                '& th, & td': {
                  px: { xs: 1, sm: 2 },
                  fontSize: { xs: '0.8rem', sm: '0.875rem' },
                  fontVariantNumeric: 'tabular-nums',
                },
              }}
            >
              <TableHead>
                <TableRow>
                  <TableCell component="th" scope="col">
                    Filament
                  </TableCell>
                  <TableCell component="th" scope="col" align="right">
                    Filament /g
                  </TableCell>
                  <TableCell component="th" scope="col" align="right">
                    Fulfilment /g
                  </TableCell>
                  <TableCell component="th" scope="col" align="right">
                    Total /g
                  </TableCell>
                  <TableCell component="th" scope="col" align="right">
                    {EXAMPLE_GRAMS} g print
                  </TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {rows.map((row) => (
                  <TableRow key={row.filament} data-testid={`price-row-${row.filament}`}>
                    <TableCell component="th" scope="row" sx={{ fontWeight: 700 }}>
                      {row.filament}
                    </TableCell>
                    <TableCell align="right">{formatPerGram(row.filamentPerGram)}</TableCell>
                    <TableCell align="right">{formatPerGram(row.fulfilmentPerGram)}</TableCell>
                    <TableCell align="right" sx={{ fontWeight: 700 }}>
                      {formatPerGram(row.totalPerGram)}
                    </TableCell>
                    <TableCell align="right">{formatUsd(row.exampleCost)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        </Reveal>
        <Typography variant="body2" color="text.secondary" sx={{ mt: 2 }}>
          {CALCULATOR.footnote}
        </Typography>
      </PublicSection>

      <PublicSection
        id="worked-example"
        eyebrow="Worked example"
        title={`A ${EXAMPLE_GRAMS} g print in PLA costs ${formatUsd(plaExample)}`}
        tinted
      >
        <Reveal>
          <Box
            data-testid="worked-example"
            sx={{
              maxWidth: 620,
              p: { xs: 2.5, md: 4 },
              borderRadius: 4,
              border: 1,
              borderColor: 'divider',
              bgcolor: 'background.paper',
              fontVariantNumeric: 'tabular-nums',
            }}
          >
            <ExampleLine
              label={`Filament: ${EXAMPLE_GRAMS} g × ${formatPerGram(pla)}`}
              amount={formatUsd(EXAMPLE_GRAMS * pla)}
            />
            <ExampleLine
              label={`Fulfilment: ${EXAMPLE_GRAMS} g × ${formatPerGram(FULFILMENT_USD_PER_GRAM)}`}
              amount={formatUsd(EXAMPLE_GRAMS * FULFILMENT_USD_PER_GRAM)}
            />
            <Box sx={{ borderTop: 1, borderColor: 'divider', mt: 1.5, pt: 1.5 }}>
              <ExampleLine label="You pay when it sells" amount={formatUsd(plaExample)} strong />
            </Box>
            <Typography variant="body2" color="text.secondary" sx={{ mt: 2 }}>
              Sell it for $20 once a day and you keep about {formatUsd(monthlyEarningsUsd(20, plaExample, 1))}{' '}
              a month, before shipping and taxes. Try your own numbers in the{' '}
              <Link component={RouterLink} to="/#earnings-calculator">
                earnings calculator
              </Link>
              .
            </Typography>
          </Box>
        </Reveal>
      </PublicSection>

      <PublicSection id="quote" eyebrow="Your quote" title="What a quote includes, and what it does not">
        <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
          <Reveal>
            <ChecklistCard title="Included in the per-gram price" items={QUOTE_INCLUDES} />
          </Reveal>
          <Reveal delayMs={100}>
            <ChecklistCard title="Not included" items={QUOTE_EXCLUDES} excluded />
          </Reveal>
        </Box>
      </PublicSection>

      <PublicSection
        id="add-ons"
        eyebrow="Add-on services"
        title="Add-ons, quoted per design"
        intro="Work beyond printing depends on the design, so we price it when we quote yours. Ask us through the contact form, or mention it when you upload."
        tinted
      >
        <Box
          component="ul"
          data-testid="add-on-services"
          sx={{
            listStyle: 'none',
            p: 0,
            m: 0,
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', md: 'repeat(3, 1fr)' },
          }}
        >
          {addOns.map((service) => (
            <Box
              component="li"
              key={service.id}
              sx={{
                display: 'flex',
                alignItems: 'center',
                gap: 1.5,
                p: 2,
                borderRadius: 3,
                border: 1,
                borderColor: 'divider',
                bgcolor: 'background.paper',
              }}
            >
              <Box sx={{ color: 'primary.main', display: 'flex' }}>
                <service.icon />
              </Box>
              <Typography sx={{ flex: 1, fontWeight: 600 }}>{service.title}</Typography>
              <Chip label="Quoted per design" size="small" variant="outlined" />
            </Box>
          ))}
        </Box>
      </PublicSection>

      <CallToActionBand
        title="Get your first quote"
        body="Sign up free, upload a model and see exactly what it costs per item."
        secondary={{ label: 'Ask a question', to: '/contact-us' }}
      />
    </>
  );
}

function ExampleLine({ label, amount, strong }: { label: string; amount: string; strong?: boolean }) {
  return (
    <Box sx={{ display: 'flex', justifyContent: 'space-between', gap: 2, py: 0.5 }}>
      <Typography sx={{ fontWeight: strong ? 700 : 400 }}>{label}</Typography>
      <Typography
        sx={{ fontWeight: strong ? 800 : 600, fontSize: strong ? '1.25rem' : undefined }}
        color={strong ? 'primary' : undefined}
      >
        {amount}
      </Typography>
    </Box>
  );
}
