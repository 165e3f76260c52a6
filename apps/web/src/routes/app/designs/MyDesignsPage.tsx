import { useState } from 'react';
import { Link as RouterLink, useLocation } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import LinearProgress from '@mui/material/LinearProgress';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import CloudUploadOutlinedIcon from '@mui/icons-material/CloudUploadOutlined';
import ViewInArOutlinedIcon from '@mui/icons-material/ViewInArOutlined';
import { ROUTES } from '@layerline/contracts';
import { useDesigns } from '../../../api/designs.ts';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { LazyDesignDetailDialog } from './detail/LazyDesignDetailDialog.tsx';
import { DesignGrid } from './DesignGrid.tsx';
import { StorageUsage } from './StorageUsage.tsx';
import { useDebouncedValue } from './use-debounced-value.ts';
import { useDesignParam } from './use-design-param.ts';
import { SearchField } from '../../../components/SearchField.tsx';

const PAGE_SIZE = 24;

/**
 * The seller's designs (§2 /my-designs, and /print-configurations, the same page): a searchable
 * grid of cards; a card opens the design's detail with its configurations and quotes.
 */
export default function MyDesignsPage() {
  const { pathname } = useLocation();
  const title = ROUTES.find((route) => route.path === pathname)?.title ?? 'My Designs';
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search.trim(), 300);
  // A new search starts again at the first page.
  const pages = useCursorPages(debouncedSearch);
  const designs = useDesigns(debouncedSearch, pages.cursor, PAGE_SIZE);
  const { designId, openDesign, closeDesign } = useDesignParam();
  const hasNone = designs.data?.total === 0 && debouncedSearch === '';

  return (
    <Box>
      <PageHeading
        title={title}
        subtitle="Your 3D models, their checks, and a quote for every way you print them."
        actions={
          <Button
            component={RouterLink}
            to="/upload-design"
            variant="contained"
            startIcon={<CloudUploadOutlinedIcon />}
          >
            Upload designs
          </Button>
        }
      />
      {hasNone ? null : (
        <Box
          sx={{
            display: 'flex',
            gap: 2,
            flexWrap: 'wrap',
            alignItems: 'flex-end',
            justifyContent: 'space-between',
            mb: 1,
          }}
        >
          <SearchField
            placeholder="Search by name or file name"
            label="Search designs"
            testId="design-search"
            value={search}
            onChange={setSearch}
            sx={{ flex: '1 1 260px', maxWidth: 420 }}
          />
          {designs.data ? (
            <StorageUsage
              usedBytes={designs.data.storage.usedBytes}
              quotaBytes={designs.data.storage.quotaBytes}
            />
          ) : null}
        </Box>
      )}
      <Box sx={{ height: 4, mb: 1 }}>
        {designs.isFetching && !designs.isPending ? <LinearProgress /> : null}
      </Box>
      {designs.isError ? <Alert severity="error">{designs.error.message}</Alert> : null}
      {designs.isPending ? <GridSkeleton /> : null}
      {hasNone ? <EmptyState /> : null}
      {designs.data && designs.data.total === 0 && debouncedSearch !== '' ? (
        <Typography color="text.secondary" sx={{ py: 6, textAlign: 'center' }}>
          No design matches “{debouncedSearch}”.
        </Typography>
      ) : null}
      {designs.data && designs.data.items.length > 0 ? (
        <DesignGrid designs={designs.data.items} onOpen={openDesign} />
      ) : null}
      <Box sx={{ display: 'flex', justifyContent: 'center', mt: 1 }}>
        <CursorPager pages={pages} nextCursor={designs.data?.nextCursor} label="Pages of designs" />
      </Box>
      <LazyDesignDetailDialog designId={designId} onClose={closeDesign} />
    </Box>
  );
}

function EmptyState() {
  return (
    <Card variant="outlined" sx={{ borderStyle: 'dashed', borderRadius: 3 }} data-testid="designs-empty">
      <CardContent sx={{ textAlign: 'center', py: 6, px: 3 }}>
        <ViewInArOutlinedIcon sx={{ fontSize: 56, color: 'primary.main' }} aria-hidden />
        <Typography variant="h6" component="h2" sx={{ mt: 1 }}>
          No designs yet
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 0.5, mb: 3, maxWidth: 460, mx: 'auto' }}>
          Upload an STL, 3MF or OBJ file. We check it for printing problems and give you a price per unit
          straight away.
        </Typography>
        <Button
          component={RouterLink}
          to="/upload-design"
          variant="contained"
          size="large"
          startIcon={<CloudUploadOutlinedIcon />}
        >
          Upload your first design
        </Button>
      </CardContent>
    </Card>
  );
}

function GridSkeleton() {
  return (
    <Box
      sx={{
        display: 'grid',
        gap: 2,
        gridTemplateColumns: 'repeat(auto-fill, minmax(min(100%, 250px), 1fr))',
      }}
      aria-hidden
    >
      {Array.from({ length: 6 }, (_, index) => (
        <Skeleton key={index} variant="rounded" height={320} />
      ))}
    </Box>
  );
}
