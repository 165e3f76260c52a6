import { Fragment, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Collapse from '@mui/material/Collapse';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import KeyboardArrowDownIcon from '@mui/icons-material/KeyboardArrowDown';
import KeyboardArrowRightIcon from '@mui/icons-material/KeyboardArrowRight';
import type { Design } from '@layerline/contracts';
import { useAdminDesigns } from '../../../api/designs.ts';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { formatBytes, formatDimensions } from '../../app/designs/design-format.ts';
import { useDebouncedValue } from '../../app/designs/use-debounced-value.ts';
import { AdminConfigCard } from './AdminConfigCard.tsx';
import { SearchField } from '../../../components/SearchField.tsx';

const PAGE_SIZE = 25;
const COLUMNS = 7;

/** Every seller's designs; a row opens to show its configurations and the cost-data forms. */
export function DesignFilesTable() {
  const [search, setSearch] = useState('');
  const [expanded, setExpanded] = useState<string | null>(null);
  const debouncedSearch = useDebouncedValue(search.trim(), 300);
  // A new search starts again at the first page.
  const pages = useCursorPages(debouncedSearch);
  const designs = useAdminDesigns(debouncedSearch, pages.cursor, PAGE_SIZE);

  return (
    <Paper variant="outlined" sx={{ borderRadius: 2 }}>
      <Box
        sx={{
          p: 2,
          display: 'flex',
          gap: 2,
          flexWrap: 'wrap',
          alignItems: 'center',
          justifyContent: 'space-between',
        }}
      >
        <Typography color="text.secondary">Designs of every seller, newest first</Typography>
        <SearchField
          placeholder="Search design or owner email"
          label="Search design files"
          value={search}
          onChange={setSearch}
          sx={{ width: { xs: '100%', sm: 340 } }}
        />
      </Box>
      <Box sx={{ height: 4 }}>{designs.isFetching ? <LinearProgress /> : null}</Box>
      {designs.isError ? (
        <Alert severity="error" sx={{ m: 2 }}>
          {designs.error.message}
        </Alert>
      ) : null}
      <TableContainer sx={{ overflowX: 'auto' }}>
        <Table size="small" aria-label="Design files">
          <TableHead>
            <TableRow>
              <TableCell padding="checkbox" />
              <TableCell>Design</TableCell>
              <TableCell>Owner</TableCell>
              <TableCell>File</TableCell>
              <TableCell>Dimensions</TableCell>
              <TableCell align="right">Configs</TableCell>
              <TableCell>Created</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {designs.data?.items.map((design) => (
              <DesignRow
                key={design.id}
                design={design}
                open={expanded === design.id}
                onToggle={() => setExpanded((current) => (current === design.id ? null : design.id))}
              />
            ))}
            {designs.data && designs.data.items.length === 0 ? (
              <TableRow>
                <TableCell colSpan={COLUMNS} align="center" sx={{ py: 4, color: 'text.secondary' }}>
                  {debouncedSearch
                    ? `No design matches “${debouncedSearch}”.`
                    : 'No seller has uploaded a design yet.'}
                </TableCell>
              </TableRow>
            ) : null}
          </TableBody>
        </Table>
      </TableContainer>
      <Box sx={{ px: 2, pb: 2 }}>
        <CursorPager pages={pages} nextCursor={designs.data?.nextCursor} label="Pages of design files" />
      </Box>
    </Paper>
  );
}

function DesignRow({ design, open, onToggle }: { design: Design; open: boolean; onToggle(): void }) {
  const detailId = `design-files-${design.id}`;
  return (
    <Fragment>
      <TableRow
        hover
        data-testid="admin-design-row"
        data-owner={design.ownerEmail ?? ''}
        data-name={design.name}
        sx={{ '& > td': { borderBottom: open ? 'none' : undefined } }}
      >
        <TableCell padding="checkbox">
          <IconButton
            size="small"
            onClick={onToggle}
            aria-expanded={open}
            aria-controls={detailId}
            aria-label={`${open ? 'Hide' : 'Show'} configurations of ${design.name}`}
          >
            {open ? <KeyboardArrowDownIcon /> : <KeyboardArrowRightIcon />}
          </IconButton>
        </TableCell>
        <TableCell>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, minWidth: 180 }}>
            <Box
              component="img"
              src={design.thumbnailUrl}
              alt=""
              sx={{
                width: 40,
                height: 40,
                objectFit: 'contain',
                borderRadius: 1,
                bgcolor: 'action.hover',
                flexShrink: 0,
              }}
            />
            <Box sx={{ minWidth: 0 }}>
              <Typography variant="body2" sx={{ fontWeight: 600 }}>
                {design.name}
              </Typography>
              <Typography variant="caption" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                {design.fileName}
              </Typography>
            </Box>
          </Box>
        </TableCell>
        <TableCell sx={{ overflowWrap: 'anywhere', minWidth: 160 }}>{design.ownerEmail ?? '—'}</TableCell>
        <TableCell sx={{ whiteSpace: 'nowrap' }}>
          <Chip size="small" label={design.format.toUpperCase()} sx={{ mr: 1 }} />
          {formatBytes(design.sizeBytes)}
        </TableCell>
        <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDimensions(design.bboxMm)}</TableCell>
        <TableCell align="right">{design.printConfigs.length}</TableCell>
        <TableCell sx={{ whiteSpace: 'nowrap' }}>{new Date(design.createdAt).toLocaleDateString()}</TableCell>
      </TableRow>
      <TableRow>
        <TableCell colSpan={COLUMNS} sx={{ py: 0, bgcolor: open ? 'action.hover' : undefined }}>
          <Collapse in={open} timeout="auto" unmountOnExit id={detailId}>
            <Box
              sx={{
                py: 2,
                display: 'grid',
                gap: 2,
                gridTemplateColumns: 'repeat(auto-fill, minmax(min(100%, 360px), 1fr))',
              }}
            >
              {design.printConfigs.map((config) => (
                <AdminConfigCard key={config.id} design={design} config={config} />
              ))}
              {design.printConfigs.length === 0 ? (
                <Typography color="text.secondary">No print configuration.</Typography>
              ) : null}
            </Box>
          </Collapse>
        </TableCell>
      </TableRow>
    </Fragment>
  );
}
