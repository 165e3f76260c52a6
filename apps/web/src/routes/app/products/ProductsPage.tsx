import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import LinearProgress from '@mui/material/LinearProgress';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import CategoryOutlinedIcon from '@mui/icons-material/CategoryOutlined';
import CloudUploadOutlinedIcon from '@mui/icons-material/CloudUploadOutlined';
import type { Product } from '@layerline/contracts';
import { useDeleteProduct, useProducts } from '../../../api/products.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { useDebouncedValue } from '../designs/use-debounced-value.ts';
import { ProductCard } from './ProductCard.tsx';
import { ProductEditorDialog } from './ProductEditorDialog.tsx';
import { SearchField } from '../../../components/SearchField.tsx';

const PAGE_SIZE = 20;

/** Editor state: closed, a new product, or an existing one. */
type Editing = { kind: 'closed' } | { kind: 'new' } | { kind: 'edit'; product: Product };

/**
 * §2 /products (and /link-skus): the seller's products, each variant with its SKU, packaging,
 * printed parts, unit cost from the quotes, and how many marketplace listings are linked to it.
 */
export default function ProductsPage() {
  const { showToast } = useToast();
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search.trim(), 300);
  // A new search starts again at the first page.
  const pages = useCursorPages(debouncedSearch);
  const products = useProducts(debouncedSearch, pages.cursor, PAGE_SIZE);
  const remove = useDeleteProduct();
  const [editing, setEditing] = useState<Editing>({ kind: 'closed' });
  const [deleting, setDeleting] = useState<Product | null>(null);
  const hasNone = products.data?.total === 0 && debouncedSearch === '';
  const linkedToDeleting = deleting?.variants.reduce((sum, v) => sum + v.linkedListings, 0) ?? 0;

  function confirmDelete() {
    if (!deleting) return;
    const name = deleting.name;
    remove.mutate(deleting.id, {
      onSuccess: () => {
        showToast(`Deleted “${name}”`);
        setDeleting(null);
      },
      onError: (error) => showToast(error.message, 'error'),
    });
  }

  return (
    <Box>
      <PageHeading
        title="Products"
        subtitle="Group your designs into products, give each variant the SKU of its listing, and see what a unit costs."
        actions={
          <>
            <Button component={RouterLink} to="/create-product" startIcon={<CloudUploadOutlinedIcon />}>
              Upload designs
            </Button>
            <Button
              variant="contained"
              startIcon={<AddIcon />}
              onClick={() => setEditing({ kind: 'new' })}
              data-testid="new-product"
            >
              New product
            </Button>
          </>
        }
      />
      {hasNone ? null : (
        <SearchField
          placeholder="Search by name or SKU"
          label="Search products"
          testId="product-search"
          value={search}
          onChange={setSearch}
          sx={{ width: '100%', maxWidth: 420, mb: 1 }}
        />
      )}
      <Box sx={{ height: 4, mb: 1 }}>{products.isFetching && !products.isPending ? <LinearProgress /> : null}</Box>
      {products.isError ? <Alert severity="error">{products.error.message}</Alert> : null}
      {products.isPending ? (
        <Stack spacing={2} aria-hidden>
          {[0, 1, 2].map((index) => (
            <Skeleton key={index} variant="rounded" height={160} />
          ))}
        </Stack>
      ) : null}
      {hasNone ? <EmptyState onCreate={() => setEditing({ kind: 'new' })} /> : null}
      {products.data && products.data.total === 0 && debouncedSearch !== '' ? (
        <Typography color="text.secondary" sx={{ py: 6, textAlign: 'center' }}>
          No product matches “{debouncedSearch}”.
        </Typography>
      ) : null}
      <Stack spacing={2} data-testid="product-list">
        {products.data?.items.map((product) => (
          <ProductCard
            key={product.id}
            product={product}
            onEdit={() => setEditing({ kind: 'edit', product })}
            onDelete={() => setDeleting(product)}
          />
        ))}
      </Stack>
      <Box sx={{ display: 'flex', justifyContent: 'center', mt: 1 }}>
        <CursorPager pages={pages} nextCursor={products.data?.nextCursor} label="Pages of products" />
      </Box>
      <ProductEditorDialog
        open={editing.kind !== 'closed'}
        product={editing.kind === 'edit' ? editing.product : undefined}
        onClose={() => setEditing({ kind: 'closed' })}
      />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete product"
        busy={remove.isPending}
        onConfirm={confirmDelete}
        onCancel={() => setDeleting(null)}
      >
        Its variants and their SKUs are removed. Your designs stay.
        {linkedToDeleting > 0
          ? ` ${linkedToDeleting} linked listing${linkedToDeleting === 1 ? '' : 's'} will be unlinked, and new orders for ${linkedToDeleting === 1 ? 'it' : 'them'} will wait on hold until you link them again.`
          : ''}
      </ConfirmDialog>
    </Box>
  );
}

function EmptyState({ onCreate }: { onCreate(): void }) {
  return (
    <Card variant="outlined" sx={{ borderStyle: 'dashed', borderRadius: 3 }} data-testid="products-empty">
      <CardContent sx={{ textAlign: 'center', py: 6, px: 3 }}>
        <CategoryOutlinedIcon sx={{ fontSize: 56, color: 'primary.main' }} aria-hidden />
        <Typography variant="h6" component="h2" sx={{ mt: 1 }}>
          No products yet
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 0.5, mb: 3, maxWidth: 520, mx: 'auto' }}>
          A product is what your buyers order: one or more of your designs, printed the way you chose, sold in
          variants with the SKUs of your listings. Start by uploading its 3D files.
        </Typography>
        <Box sx={{ display: 'flex', gap: 1, justifyContent: 'center', flexWrap: 'wrap' }}>
          <Button
            component={RouterLink}
            to="/create-product"
            variant="contained"
            size="large"
            startIcon={<CloudUploadOutlinedIcon />}
          >
            Create your first product
          </Button>
          <Button size="large" onClick={onCreate}>
            From designs I already uploaded
          </Button>
        </Box>
      </CardContent>
    </Card>
  );
}
