import { useState, type FormEvent } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { PACKAGING_SUGGESTIONS, type Design } from '@layerline/contracts';
import { useCreateProduct, useDesignsByIds } from '../../../api/products.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { formatUsd } from '../designs/design-format.ts';
import { draftToInput, type ProductDraft } from './product-draft.ts';

const LIST_ID = 'create-product-packaging';

/**
 * The second step of /create-product: turns the designs just uploaded into a product with one
 * variant (its SKU and packaging), made of each design's default configuration × 1. More variants
 * and parts are edited on /products afterwards.
 */
export function CreateProductFromDesigns({ designIds }: { designIds: string[] }) {
  const { showToast } = useToast();
  const navigate = useNavigate();
  const results = useDesignsByIds(designIds);
  const designs = results.flatMap((result) => (result.data ? [result.data] : []));
  const create = useCreateProduct();
  const [name, setName] = useState<string | null>(null);
  const [variantName, setVariantName] = useState('Standard');
  const [sku, setSku] = useState('');
  const [packaging, setPackaging] = useState('standard');
  const [error, setError] = useState<string | null>(null);
  const loading = results.some((result) => result.isPending);
  const configs = designs.flatMap((design) => (design.printConfigs[0] ? [{ design, config: design.printConfigs[0] }] : []));
  const priced = configs.every(({ config }) => config.quote !== null);
  const total = configs.reduce((sum, { config }) => sum + (config.quote?.costUsd ?? 0), 0);
  const productName = name ?? defaultName(designs);

  function submit(event: FormEvent) {
    event.preventDefault();
    const draft: ProductDraft = {
      name: productName,
      description: '',
      variants: [
        {
          key: 'only',
          name: variantName,
          sku,
          packaging,
          parts: configs.map(({ config }) => ({ key: config.id, printConfigId: config.id, quantity: '1' })),
        },
      ],
    };
    const result = draftToInput(draft);
    if (!result.ok) {
      setError(result.message);
      return;
    }
    setError(null);
    create.mutate(result.input, {
      onSuccess: (product) => {
        showToast(`Created “${product.name}”`);
        void navigate('/products');
      },
      onError: (failure) => setError(failure.message),
    });
  }

  if (designIds.length === 0) return null;
  return (
    <Card
      variant="outlined"
      component="section"
      aria-labelledby="create-from-designs-heading"
      sx={{ mt: 4, maxWidth: 880, borderRadius: 3 }}
      data-testid="create-product-from-designs"
    >
      <CardContent>
        <Typography id="create-from-designs-heading" variant="h6" component="h2">
          Group them into a product
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          One unit of the product is one print of each design with its first configuration. Give it the SKU of
          your marketplace listing; add variants and change quantities later on{' '}
          <Box component={RouterLink} to="/products" sx={{ color: 'inherit', fontWeight: 600 }}>
            Products
          </Box>
          .
        </Typography>
        <Box component="form" onSubmit={submit} noValidate>
          <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '2fr 1fr' } }}>
            <TextField
              label="Product name"
              required
              value={productName}
              onChange={(event) => setName(event.target.value)}
              slotProps={{ htmlInput: { maxLength: 200, 'data-testid': 'quick-product-name' } }}
            />
            <TextField
              label="Variant name"
              required
              value={variantName}
              onChange={(event) => setVariantName(event.target.value)}
              slotProps={{ htmlInput: { maxLength: 120, 'data-testid': 'quick-variant-name' } }}
            />
            <TextField
              label="SKU"
              required
              value={sku}
              onChange={(event) => setSku(event.target.value)}
              helperText="As on your marketplace listing"
              slotProps={{ htmlInput: { maxLength: 100, spellCheck: false, 'data-testid': 'quick-sku' } }}
            />
            <TextField
              label="Packaging"
              value={packaging}
              onChange={(event) => setPackaging(event.target.value)}
              helperText="Pick one or type your own"
              slotProps={{ htmlInput: { maxLength: 120, list: LIST_ID, 'data-testid': 'quick-packaging' } }}
            />
          </Box>
          <datalist id={LIST_ID}>
            {PACKAGING_SUGGESTIONS.map((option) => (
              <option key={option} value={option} />
            ))}
          </datalist>
          <Box component="ul" sx={{ pl: 2.5, my: 2 }}>
            {configs.map(({ design, config }) => (
              <Typography component="li" key={config.id} variant="body2">
                1 × {design.name} — {config.name}
                {config.quote ? ` · ${formatUsd(config.quote.costUsd)}` : ' · no quote yet'}
              </Typography>
            ))}
          </Box>
          <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 2, flexWrap: 'wrap' }}>
            <Typography>
              Unit cost{' '}
              <strong data-testid="quick-unit-cost">{loading || !priced ? '—' : formatUsd(Math.round(total * 100) / 100)}</strong>
            </Typography>
            <Button type="submit" variant="contained" disabled={create.isPending || loading || configs.length === 0} data-testid="quick-create-product">
              Create product
            </Button>
          </Box>
          {error ? (
            <Alert severity="error" sx={{ mt: 2 }} data-testid="quick-product-error">
              {error}
            </Alert>
          ) : null}
        </Box>
      </CardContent>
    </Card>
  );
}

function defaultName(designs: readonly Design[]): string {
  if (designs.length === 0) return '';
  const first = designs[0]?.name ?? '';
  return designs.length === 1 ? first : `${first} set`;
}
