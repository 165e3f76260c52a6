import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
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
import { ORDER_STATUSES, type OrderStatus } from '@layerline/contracts';
import { useOrders } from '../../../api/orders.ts';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { useDebouncedValue } from '../designs/use-debounced-value.ts';
import { OrderDetailDialog } from './OrderDetailDialog.tsx';
import { date, money, statusColor, statusLabel } from './order-format.ts';
import { useOrderParam } from './use-order-param.ts';

const PAGE_SIZE = 25;

/** The orders table with its filters and the detail dialog; the seller's (/orders) or everyone's (/admin-orders). */
export function OrdersView({ scope }: { scope: 'mine' | 'admin' }) {
  const [status, setStatus] = useState<OrderStatus | ''>('');
  const [search, setSearch] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const debounced = useDebouncedValue(search.trim(), 300);
  // Keyset pages: any change of the filters starts again at the first page.
  const pages = useCursorPages(JSON.stringify([scope, status, debounced, from, to]));
  const orders = useOrders({ status, search: debounced, from, to, cursor: pages.cursor, limit: PAGE_SIZE }, scope);
  const { orderId, openOrder, closeOrder } = useOrderParam();
  const empty = orders.data !== undefined && orders.data.items.length === 0 && pages.pageNumber === 1;

  return (
    <Box>
      <Box sx={{ display: 'grid', gap: 2, mb: 2, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', md: '2fr 1fr 1fr 1fr' } }}>
        <TextField
          size="small"
          label={scope === 'admin' ? 'Search order, buyer, SKU or seller' : 'Search order, buyer or SKU'}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <TextField
          size="small"
          select
          label="Status"
          value={status}
          onChange={(e) => setStatus(e.target.value as OrderStatus | '')}
        >
          <MenuItem value="">Any status</MenuItem>
          {ORDER_STATUSES.map((s) => (
            <MenuItem key={s} value={s}>
              {statusLabel(s)}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          size="small"
          type="date"
          label="From"
          value={from}
          onChange={(e) => setFrom(e.target.value)}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        <TextField
          size="small"
          type="date"
          label="To"
          value={to}
          onChange={(e) => setTo(e.target.value)}
          slotProps={{ inputLabel: { shrink: true } }}
        />
      </Box>
      {orders.isFetching ? <LinearProgress sx={{ mb: 1 }} /> : null}
      {orders.isError ? <Alert severity="error">{orders.error.message}</Alert> : null}
      {empty ? (
        <Alert severity="info">
          {debounced || status || from || to
            ? 'No order matches these filters.'
            : 'No orders yet. They appear here as soon as a shop sends one.'}
        </Alert>
      ) : null}
      {orders.data && orders.data.items.length > 0 ? (
        <TableContainer>
          <Table size="small" aria-label="Orders">
            <TableHead>
              <TableRow>
                <TableCell>Order</TableCell>
                <TableCell>Placed</TableCell>
                {scope === 'admin' ? <TableCell>Seller</TableCell> : null}
                <TableCell>Buyer</TableCell>
                <TableCell>From</TableCell>
                <TableCell align="right">Items</TableCell>
                <TableCell align="right">Total</TableCell>
                <TableCell>Status</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {orders.data.items.map((order) => (
                <TableRow
                  key={order.id}
                  hover
                  sx={{ cursor: 'pointer' }}
                  onClick={() => openOrder(order.id)}
                  data-testid="order-row"
                >
                  <TableCell>
                    <a
                      href={`?order=${order.id}`}
                      onClick={(e) => {
                        e.preventDefault();
                        e.stopPropagation();
                        openOrder(order.id);
                      }}
                    >
                      {order.externalId}
                    </a>
                  </TableCell>
                  <TableCell>{date(order.placedAt)}</TableCell>
                  {scope === 'admin' ? <TableCell>{order.ownerEmail}</TableCell> : null}
                  <TableCell>{order.customerName}</TableCell>
                  <TableCell>{order.shopName ?? order.platform}</TableCell>
                  <TableCell align="right">{order.itemCount}</TableCell>
                  <TableCell align="right">{money(order.totalCents, order.currency)}</TableCell>
                  <TableCell>
                    <Chip size="small" label={statusLabel(order.status)} color={statusColor(order.status)} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      ) : null}
      <CursorPager pages={pages} nextCursor={orders.data?.nextCursor} label="Pages of orders" />
      <OrderDetailDialog orderId={orderId} onClose={closeOrder} admin={scope === 'admin'} />
    </Box>
  );
}
