import { useId, useState } from 'react';
import Box from '@mui/material/Box';
import Divider from '@mui/material/Divider';
import FormControl from '@mui/material/FormControl';
import FormHelperText from '@mui/material/FormHelperText';
import InputLabel from '@mui/material/InputLabel';
import NativeSelect from '@mui/material/NativeSelect';
import OutlinedInput from '@mui/material/OutlinedInput';
import Typography from '@mui/material/Typography';
import {
  CALCULATOR,
  FILAMENT_RATE_USD_PER_GRAM,
  FILAMENT_TYPES,
  FULFILMENT_USD_PER_GRAM,
  fulfilmentCostUsd,
  isFilamentType,
  monthlyEarningsUsd,
  type FilamentType,
} from '@layerline/contracts';
import { PublicSection } from '../components/PublicSection.tsx';
import { Reveal } from '../components/Reveal.tsx';
import { CALCULATOR_FIELDS, formatUsd } from './calculator.ts';
import { CalculatorInput } from './CalculatorInput.tsx';

/** §2, §5, §9: what a product would earn a month, given its price, daily sales and weight. */
export function EarningsCalculatorSection() {
  const [filament, setFilament] = useState<FilamentType>(CALCULATOR.defaultFilament);
  const [salePrice, setSalePrice] = useState<number>(CALCULATOR.salePrice.default);
  const [dailySales, setDailySales] = useState<number>(CALCULATOR.dailySales.default);
  const [grams, setGrams] = useState<number>(CALCULATOR.grams.default);
  const filamentId = useId();

  const cost = fulfilmentCostUsd(filament, grams);
  const monthly = monthlyEarningsUsd(salePrice, cost, dailySales);

  return (
    <PublicSection
      id="earnings-calculator"
      eyebrow="Earnings calculator"
      title="See what a product could earn you"
      intro="Pick a filament, set your price and how often it sells. The cost is exactly what we would charge to print and fulfil it."
      testId="earnings-calculator"
    >
      <Reveal>
        <Box
          sx={{
            display: 'grid',
            gridTemplateColumns: { xs: '1fr', md: '3fr 2fr' },
            borderRadius: 4,
            border: 1,
            borderColor: 'divider',
            overflow: 'hidden',
            bgcolor: 'background.paper',
          }}
        >
          <Box
            component="form"
            aria-label="Earnings calculator inputs"
            onSubmit={(event) => event.preventDefault()}
            sx={{ p: { xs: 2.5, md: 4 }, display: 'grid', gap: 3 }}
          >
            {/* A TextField made of its parts: TextField brings the whole Select (menus, popovers) into the landing page's download. */}
            <FormControl>
              <InputLabel htmlFor={filamentId}>Filament</InputLabel>
              <NativeSelect
                id={filamentId}
                value={filament}
                onChange={(event) => {
                  if (isFilamentType(event.target.value)) setFilament(event.target.value);
                }}
                input={
                  <OutlinedInput
                    label="Filament"
                    inputProps={{ 'data-testid': 'calc-filament', 'aria-describedby': `${filamentId}-rate` }}
                  />
                }
              >
                {FILAMENT_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {type}
                  </option>
                ))}
              </NativeSelect>
              <FormHelperText id={`${filamentId}-rate`}>
                {`${formatRate(FILAMENT_RATE_USD_PER_GRAM[filament])} filament + ${formatRate(FULFILMENT_USD_PER_GRAM)} fulfilment per gram`}
              </FormHelperText>
            </FormControl>
            <CalculatorInput
              label="Sale price"
              field={CALCULATOR_FIELDS.salePrice}
              value={salePrice}
              onChange={setSalePrice}
              testId="calc-price"
              prefix="$"
            />
            <CalculatorInput
              label="Sales per day"
              field={CALCULATOR_FIELDS.dailySales}
              value={dailySales}
              onChange={setDailySales}
              testId="calc-daily"
            />
            <CalculatorInput
              label="Filament used"
              field={CALCULATOR_FIELDS.grams}
              value={grams}
              onChange={setGrams}
              testId="calc-grams"
              suffix="g"
            />
          </Box>
          <Box
            aria-live="polite"
            sx={{
              p: { xs: 2.5, md: 4 },
              display: 'flex',
              flexDirection: 'column',
              justifyContent: 'center',
              gap: 2.5,
              background: (theme) =>
                theme.palette.mode === 'dark'
                  ? 'linear-gradient(160deg, rgba(249,115,22,0.18), rgba(249,115,22,0.04))'
                  : 'linear-gradient(160deg, rgba(249,115,22,0.14), rgba(249,115,22,0.03))',
            }}
          >
            <Box>
              <Typography color="text.secondary">Fulfilment cost per item</Typography>
              <Typography
                data-testid="calc-cost"
                sx={{ fontSize: '2rem', fontWeight: 800, fontVariantNumeric: 'tabular-nums' }}
              >
                {formatUsd(cost)}
              </Typography>
            </Box>
            <Divider />
            <Box>
              <Typography color="text.secondary">Your earnings per month</Typography>
              <Typography
                data-testid="calc-monthly"
                color="primary"
                sx={{
                  fontSize: { xs: '2.4rem', md: '3rem' },
                  fontWeight: 800,
                  lineHeight: 1.1,
                  fontVariantNumeric: 'tabular-nums',
                }}
              >
                {formatUsd(monthly)}
              </Typography>
              <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                ({formatUsd(salePrice)} − {formatUsd(cost)}) × {dailySales} a day × 30 days
              </Typography>
            </Box>
            <Typography variant="caption" color="text.secondary" data-testid="calc-footnote">
              {CALCULATOR.footnote}
            </Typography>
          </Box>
        </Box>
      </Reveal>
    </PublicSection>
  );
}

function formatRate(usdPerGram: number): string {
  return `$${usdPerGram.toFixed(3).replace(/0$/, '')}`;
}
