import { useState, type ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import TablePagination from '@mui/material/TablePagination';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import DownloadIcon from '@mui/icons-material/Download';
import {
  fulfillmentCsvUrl,
  useFulfillmentHistory,
  useFulfillmentMonthly,
  type FulfillmentFilter,
  type FulfillmentScope,
} from '../../../api/fulfillment.ts';
import { SearchField } from '../../../components/SearchField.tsx';
import { useDebouncedValue } from '../designs/use-debounced-value.ts';
import { FulfillmentTable } from './FulfillmentTable.tsx';
import { MonthlyChart } from './MonthlyChart.tsx';

const PAGE_SIZES = [25, 50, 100, 200];
const DEFAULT_PAGE_SIZE = 50;

/**
 * The fulfilment history: search and date filters, the monthly chart, the table, page controls and
 * the CSV export of the same view. The seller's own (/fulfillment-history) or, for admins,
 * everyone's with a seller filter (`sellerId`, `sellerFilter`) (/admin-fulfillment-history).
 */
export function FulfillmentHistoryView({
  scope,
  sellerId = '',
  sellerFilter,
}: {
  scope: FulfillmentScope;
  sellerId?: string;
  sellerFilter?: ReactNode;
}) {
  const [search, setSearch] = useState('');
  const [startDate, setStartDate] = useState('');
  const [endDate, setEndDate] = useState('');
  const [orderDirection, setOrderDirection] = useState<'desc' | 'asc'>('desc');
  const searchTerm = useDebouncedValue(search.trim(), 300);
  const filter: FulfillmentFilter = { searchTerm, startDate, endDate, orderDirection, sellerId };
  // Any change of the filters starts again at page 1.
  const filterKey = JSON.stringify(filter);
  const [paging, setPaging] = useState({ filterKey, page: 1, limit: DEFAULT_PAGE_SIZE });
  const page = paging.filterKey === filterKey ? paging.page : 1;
  const history = useFulfillmentHistory(scope, filter, page, paging.limit);
  const monthly = useFulfillmentMonthly(scope, filter);
  const data = history.data;
  const filtered = Boolean(searchTerm || startDate || endDate || sellerId);

  return (
    <Box>
      <Box
        sx={{
          display: 'grid',
          gap: 2,
          mb: 2,
          // The date fields keep the width their "mm/dd/yyyy" needs; the search and seller fields take the rest.
          gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', lg: sellerFilter ? '3fr 3fr 170px 170px 150px' : '3fr 170px 170px 150px' },
        }}
      >
        <SearchField
          value={search}
          onChange={setSearch}
          placeholder="Order, buyer, SKU or tracking number"
          label="Search shipments"
          testId="fulfillment-search"
        />
        {sellerFilter}
        <TextField
          size="small"
          type="date"
          label="From"
          value={startDate}
          onChange={(e) => setStartDate(e.target.value)}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        <TextField
          size="small"
          type="date"
          label="To"
          value={endDate}
          onChange={(e) => setEndDate(e.target.value)}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        <TextField
          size="small"
          select
          label="Order"
          value={orderDirection}
          onChange={(e) => setOrderDirection(e.target.value as 'desc' | 'asc')}
        >
          <MenuItem value="desc">Newest first</MenuItem>
          <MenuItem value="asc">Oldest first</MenuItem>
        </TextField>
      </Box>

      {monthly.data && monthly.data.months.length > 0 ? (
        <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
          <Typography variant="subtitle2" sx={{ mb: 1 }}>
            Monthly volume and spend
          </Typography>
          <MonthlyChart months={monthly.data.months} />
        </Paper>
      ) : null}

      <Box sx={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', gap: 2, mb: 1, flexWrap: 'wrap' }}>
        <Typography variant="body2" color="text.secondary" data-testid="fulfillment-total">
          {data ? `${data.total.toLocaleString()}${data.totalCapped ? '+' : ''} shipment${data.total === 1 && !data.totalCapped ? '' : 's'}` : ' '}
        </Typography>
        <Button
          component="a"
          href={fulfillmentCsvUrl(scope, filter)}
          download
          variant="outlined"
          size="small"
          startIcon={<DownloadIcon />}
          disabled={!data || data.total === 0}
        >
          Export CSV
        </Button>
      </Box>

      {history.isFetching ? <LinearProgress sx={{ mb: 1 }} /> : null}
      {history.isError ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          The shipments could not be loaded: {history.error.message}
        </Alert>
      ) : null}
      {data && data.items.length === 0 && !history.isError ? (
        <Alert severity="info">
          {page > 1
            ? 'There are no shipments on this page; go back a page.'
            : filtered
              ? 'No shipment matches these filters. Try another search or a wider date range.'
              : scope === 'admin'
                ? 'No shipments yet. Every label bought for a seller, and every shipment recorded here, appears in this list.'
                : 'No shipments yet. Every order we ship for you appears here, with what it cost and its tracking.'}
        </Alert>
      ) : null}
      {data && data.items.length > 0 ? <FulfillmentTable records={data.items} showSeller={scope === 'admin'} /> : null}
      {data && (data.items.length > 0 || page > 1) ? (
        <TablePagination
          component="div"
          count={data.totalCapped ? -1 : data.total}
          page={page - 1}
          rowsPerPage={paging.limit}
          rowsPerPageOptions={PAGE_SIZES}
          labelRowsPerPage="Per page"
          labelDisplayedRows={({ from, to }) => `${from.toLocaleString()}–${to.toLocaleString()} of ${data.total.toLocaleString()}${data.totalCapped ? '+' : ''}`}
          onPageChange={(_, next) => setPaging({ filterKey, page: next + 1, limit: paging.limit })}
          onRowsPerPageChange={(e) => setPaging({ filterKey, page: 1, limit: Number(e.target.value) })}
          slotProps={{ actions: { nextButton: { disabled: !data.hasMore } } }}
        />
      ) : null}
    </Box>
  );
}
