import { useMemo, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useTheme } from '@mui/material/styles';
import AddIcon from '@mui/icons-material/Add';
import type { Product } from '@layerline/contracts';
import { PACKAGING_SUGGESTIONS } from '@layerline/contracts';
import { useCreateProduct, useDesignsForParts, useUpdateProduct } from '../../../api/products.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { VariantEditor } from './VariantEditor.tsx';
import {
  PACKAGING_LIST_ID,
  configOptions,
  draftFromProduct,
  draftToInput,
  emptyDraft,
  emptyVariant,
  type ProductDraft,
  type VariantDraft,
} from './product-draft.ts';

/**
 * Creates a product or edits one: its name, description and variants, each variant's SKU,
 * packaging and printed parts, with each variant's unit cost computed live from the quotes.
 * `product` undefined = a new product.
 */
export function ProductEditorDialog({
  open,
  product,
  onClose,
}: {
  open: boolean;
  product: Product | undefined;
  onClose(): void;
}) {
  const theme = useTheme();
  const fullScreen = useMediaQuery(theme.breakpoints.down('md'));
  return (
    <Dialog
      open={open}
      onClose={onClose}
      fullScreen={fullScreen}
      fullWidth
      maxWidth="md"
      aria-labelledby="product-editor-title"
      slotProps={{ paper: { 'data-testid': 'product-editor' } as object }}
    >
      {open ? <ProductEditor key={product?.id ?? 'new'} product={product} onClose={onClose} /> : null}
    </Dialog>
  );
}

function ProductEditor({ product, onClose }: { product: Product | undefined; onClose(): void }) {
  const { showToast } = useToast();
  const designs = useDesignsForParts(true);
  const create = useCreateProduct();
  const update = useUpdateProduct();
  const [draft, setDraft] = useState<ProductDraft>(() => (product ? draftFromProduct(product) : emptyDraft()));
  const [error, setError] = useState<string | null>(null);
  const options = useMemo(() => configOptions(designs.data, product), [designs.data, product]);
  const busy = create.isPending || update.isPending;
  const noDesigns = designs.data?.total === 0 && !product;

  const setVariant = (key: string, next: VariantDraft) =>
    setDraft((current) => ({ ...current, variants: current.variants.map((v) => (v.key === key ? next : v)) }));

  function save() {
    const result = draftToInput(draft);
    if (!result.ok) {
      setError(result.message);
      return;
    }
    setError(null);
    const done = {
      onSuccess: (saved: Product) => {
        showToast(product ? `Saved “${saved.name}”` : `Created “${saved.name}”`);
        onClose();
      },
      onError: (failure: Error) => setError(failure.message),
    };
    if (product) update.mutate({ productId: product.id, input: result.input }, done);
    else create.mutate(result.input, done);
  }

  return (
    <>
      <DialogTitle id="product-editor-title">{product ? `Edit ${product.name}` : 'New product'}</DialogTitle>
      <DialogContent dividers>
        <Box sx={{ height: 4, mb: 1 }}>{designs.isFetching ? <LinearProgress /> : null}</Box>
        {designs.isError ? <Alert severity="error">{designs.error.message}</Alert> : null}
        {noDesigns ? (
          <Alert severity="info" sx={{ mb: 2 }} data-testid="product-needs-designs">
            A product is made of your designs’ print configurations. Upload a design first on{' '}
            <Box component={RouterLink} to="/create-product" sx={{ color: 'inherit', fontWeight: 600 }}>
              Create Product
            </Box>
            .
          </Alert>
        ) : null}
        <Stack spacing={2}>
          <TextField
            label="Product name"
            required
            value={draft.name}
            onChange={(event) => setDraft({ ...draft, name: event.target.value })}
            slotProps={{ htmlInput: { maxLength: 200, 'data-testid': 'product-name' } }}
          />
          <TextField
            label="Description"
            multiline
            minRows={2}
            value={draft.description}
            onChange={(event) => setDraft({ ...draft, description: event.target.value })}
            slotProps={{ htmlInput: { maxLength: 5000, 'data-testid': 'product-description' } }}
          />
          {draft.variants.map((variant, index) => (
            <VariantEditor
              key={variant.key}
              index={index}
              variant={variant}
              options={options}
              onChange={(next) => setVariant(variant.key, next)}
              onRemove={
                draft.variants.length > 1
                  ? () => setDraft({ ...draft, variants: draft.variants.filter((v) => v.key !== variant.key) })
                  : undefined
              }
            />
          ))}
          <Box>
            <Button
              startIcon={<AddIcon />}
              onClick={() => setDraft({ ...draft, variants: [...draft.variants, emptyVariant()] })}
              data-testid="add-variant"
            >
              Add a variant
            </Button>
          </Box>
        </Stack>
        <datalist id={PACKAGING_LIST_ID}>
          {PACKAGING_SUGGESTIONS.map((option) => (
            <option key={option} value={option} />
          ))}
        </datalist>
        {error ? (
          <Alert severity="error" sx={{ mt: 2 }} data-testid="product-error">
            {error}
          </Alert>
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button variant="contained" onClick={save} disabled={busy || noDesigns} data-testid="product-save">
          {product ? 'Save changes' : 'Create product'}
        </Button>
      </DialogActions>
    </>
  );
}
