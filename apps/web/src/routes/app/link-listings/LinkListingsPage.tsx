import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import LinearProgress from '@mui/material/LinearProgress';
import MenuItem from '@mui/material/MenuItem';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import type { Listing, VariantOption } from '@layerline/contracts';
import { useLinkListing, useListings, useShops, useVariantOptions } from '../../../api/shops.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { useDebouncedValue } from '../designs/use-debounced-value.ts';

const PAGE_SIZE = 50;

const price = (l: Listing) =>
  l.priceCents === null
    ? ''
    : new Intl.NumberFormat(undefined, { style: 'currency', currency: l.currency ?? 'USD' }).format(
        l.priceCents / 100,
      );

/** §2 /link-listings (beta): every imported listing, the unmatched inbox, and linking to a product variant. */
export default function LinkListingsPage() {
  const [link, setLink] = useState<'all' | 'unmatched' | 'linked'>('all');
  const [search, setSearch] = useState('');
  const [shopId, setShopId] = useState('');
  const debounced = useDebouncedValue(search.trim(), 300);
  // Any change of the filters or the search starts again at the first page.
  const pages = useCursorPages(JSON.stringify([link, debounced, shopId]));
  const shops = useShops();
  const listings = useListings({ link, search: debounced, shopId, cursor: pages.cursor, limit: PAGE_SIZE });

  return (
    <Box>
      <PageHeading
        title="Link Listings"
        subtitle="Each marketplace listing is linked to the product variant we print. Same SKU links itself; link the rest here."
      />
      <Box
        sx={{
          display: 'grid',
          gap: 2,
          alignItems: 'center',
          mb: 2,
          gridTemplateColumns: { xs: '1fr', md: 'auto 2fr 1fr' },
        }}
      >
        <ToggleButtonGroup
          size="small"
          exclusive
          value={link}
          onChange={(_, value) => value && setLink(value)}
        >
          <ToggleButton value="all">All</ToggleButton>
          <ToggleButton value="unmatched">Unmatched inbox</ToggleButton>
          <ToggleButton value="linked">Linked</ToggleButton>
        </ToggleButtonGroup>
        <TextField
          size="small"
          label="Search title or SKU"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <TextField
          size="small"
          select
          label="Shop"
          value={shopId}
          onChange={(e) => setShopId(e.target.value)}
        >
          <MenuItem value="">All shops</MenuItem>
          {(shops.data ?? []).map((shop) => (
            <MenuItem key={shop.id} value={shop.id}>
              {shop.name}
            </MenuItem>
          ))}
        </TextField>
      </Box>
      {listings.isFetching ? <LinearProgress sx={{ mb: 1 }} /> : null}
      {listings.isError ? <Alert severity="error">{listings.error.message}</Alert> : null}
      {listings.data && listings.data.total === 0 ? (
        <Alert severity="info">
          {link === 'unmatched' && !debounced ? (
            'Every listing is linked. Nice.'
          ) : shops.data?.length === 0 ? (
            <>
              No shop connected yet. <RouterLink to="/connect-store">Connect a store</RouterLink> to import
              its listings.
            </>
          ) : (
            'No listings match.'
          )}
        </Alert>
      ) : null}
      {listings.data && listings.data.total > 0 ? (
        <TableContainer>
          <Table size="small" aria-label="Listings">
            <TableHead>
              <TableRow>
                <TableCell>Listing</TableCell>
                <TableCell>SKU</TableCell>
                <TableCell>Shop</TableCell>
                <TableCell align="right">Price</TableCell>
                <TableCell sx={{ minWidth: 320 }}>Product variant</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {listings.data.items.map((listing) => (
                <ListingRow key={listing.id} listing={listing} />
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      ) : null}
      <CursorPager pages={pages} nextCursor={listings.data?.nextCursor} label="Pages of listings" />
    </Box>
  );
}

function ListingRow({ listing }: { listing: Listing }) {
  const { showToast } = useToast();
  const linkListing = useLinkListing();
  const [editing, setEditing] = useState(false);

  const save = (variantId: string | null) =>
    linkListing.mutate(
      { listingId: listing.id, variantId },
      {
        onSuccess: () => {
          setEditing(false);
          showToast(variantId ? 'Listing linked' : 'Listing unlinked', 'success');
        },
        onError: (e) => showToast(e.message, 'error'),
      },
    );

  return (
    <TableRow data-testid="listing-row">
      <TableCell>
        {listing.url ? (
          <a href={listing.url} target="_blank" rel="noreferrer">
            {listing.title}
          </a>
        ) : (
          listing.title
        )}
      </TableCell>
      <TableCell>
        <code>{listing.sku || '—'}</code>
      </TableCell>
      <TableCell>{listing.shopName}</TableCell>
      <TableCell align="right">{price(listing)}</TableCell>
      <TableCell>
        {editing ? (
          <VariantPicker
            busy={linkListing.isPending}
            onPick={(v) => save(v.id)}
            onCancel={() => setEditing(false)}
          />
        ) : listing.linkedVariantId ? (
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
            <Typography variant="body2">{listing.linkedVariantLabel}</Typography>
            <Chip
              size="small"
              label={listing.linkSource === 'sku' ? 'by SKU' : 'manual'}
              color={listing.linkSource === 'sku' ? 'success' : 'default'}
            />
            <Button size="small" onClick={() => setEditing(true)}>
              Change
            </Button>
            <Button size="small" color="error" disabled={linkListing.isPending} onClick={() => save(null)}>
              Unlink
            </Button>
          </Box>
        ) : (
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            <Chip size="small" color="warning" label="Unmatched" />
            <Button size="small" variant="outlined" onClick={() => setEditing(true)}>
              Link
            </Button>
          </Box>
        )}
      </TableCell>
    </TableRow>
  );
}

function VariantPicker({
  busy,
  onPick,
  onCancel,
}: {
  busy: boolean;
  onPick(v: VariantOption): void;
  onCancel(): void;
}) {
  const [input, setInput] = useState('');
  const debounced = useDebouncedValue(input.trim(), 250);
  const options = useVariantOptions(debounced, true);
  return (
    <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
      <Autocomplete
        size="small"
        sx={{ flex: 1, minWidth: 240 }}
        options={options.data ?? []}
        loading={options.isFetching}
        filterOptions={(x) => x}
        getOptionLabel={(o) => `${o.productName} — ${o.variantName} (${o.sku})`}
        onInputChange={(_, value) => setInput(value)}
        onChange={(_, value) => value && onPick(value)}
        disabled={busy}
        noOptionsText={
          options.isError ? options.error.message : 'No variant matches — create the product first'
        }
        renderInput={(params) => <TextField {...params} label="Product variant" autoFocus />}
      />
      <Button size="small" onClick={onCancel}>
        Cancel
      </Button>
    </Box>
  );
}
