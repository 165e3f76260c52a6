import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import { useOrders } from '../../../api/orders.ts';
import { date, money, statusColor, statusLabel } from './order-format.ts';

/** The dashboard's "Recent orders": the latest five, each linking to its page on /orders. */
export function RecentOrdersCard() {
  const orders = useOrders({ status: '', search: '', from: '', to: '', cursor: undefined, limit: 5 });
  return (
    <Card variant="outlined" data-testid="recent-orders">
      <CardContent>
        <Box sx={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', mb: 1 }}>
          <Typography variant="h6" component="h2">
            Recent orders
          </Typography>
          <Button component={RouterLink} to="/orders" size="small">
            All orders
          </Button>
        </Box>
        {orders.isPending ? <Skeleton variant="rounded" height={80} /> : null}
        {orders.isError ? (
          <Typography variant="body2" color="text.secondary">
            Orders could not be loaded.
          </Typography>
        ) : null}
        {orders.data?.items.length === 0 ? (
          <Typography variant="body2" color="text.secondary">
            No orders yet. Connect a store or submit an order to get started.
          </Typography>
        ) : null}
        {orders.data?.items.map((order) => (
          <Box
            key={order.id}
            component={RouterLink}
            to={`/orders?order=${order.id}`}
            sx={{
              display: 'flex',
              gap: 1,
              alignItems: 'center',
              py: 0.75,
              color: 'inherit',
              textDecoration: 'none',
              borderTop: 1,
              borderColor: 'divider',
            }}
          >
            <Typography variant="body2" sx={{ fontWeight: 600, minWidth: 0, flex: 1 }} noWrap>
              {order.externalId} · {order.customerName}
            </Typography>
            <Typography variant="caption" color="text.secondary">
              {date(order.placedAt)} · {money(order.totalCents, order.currency)}
            </Typography>
            <Chip size="small" label={statusLabel(order.status)} color={statusColor(order.status)} />
          </Box>
        ))}
      </CardContent>
    </Card>
  );
}
