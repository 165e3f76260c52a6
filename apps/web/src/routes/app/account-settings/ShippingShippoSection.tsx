import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import {
  useDisconnectShippo,
  useShippoConnection,
  useShippoOrders,
  useStartShippoAuthorize,
  type ShippoOrder,
} from '../../../api/shipping.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';

/** The seller's own Shippo account, connected with Shippo's OAuth (the browser goes to Shippo and back). */
export function ShippingShippoSection() {
  const connection = useShippoConnection();
  const authorize = useStartShippoAuthorize();
  const disconnect = useDisconnectShippo();
  const orders = useShippoOrders();
  const { showToast } = useToast();
  const [confirmingDisconnect, setConfirmingDisconnect] = useState(false);
  const data = connection.data;

  const connect = () =>
    authorize.mutate(undefined, {
      onSuccess: ({ authorizeUrl }) => window.location.assign(authorizeUrl),
      onError: (error) => showToast(error.message, 'error'),
    });

  return (
    <Card component="section" aria-label="Shippo" data-testid="shippo-section">
      <CardContent sx={{ p: { xs: 2.5, sm: 3 } }}>
        <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography variant="h6" component="h2">
            Shippo
          </Typography>
          {data ? (
            <Chip
              size="small"
              data-testid="shippo-connection-status"
              color={data.connected ? 'success' : 'default'}
              label={data.connected ? 'Connected' : data.available ? 'Not connected' : 'Not available'}
            />
          ) : null}
        </Box>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          Buy labels on your own Shippo account. You approve the connection on Shippo’s site and come back
          here.
        </Typography>
        {connection.isPending ? <Skeleton variant="rounded" height={40} /> : null}
        {connection.error ? <Alert severity="error">{connection.error.message}</Alert> : null}
        {data && !data.available && !data.connected ? (
          <Alert severity="info">
            Shippo is not configured on this server, so it cannot be connected here. Use ShipStation or the
            sandbox carrier instead.
          </Alert>
        ) : null}
        {data?.available && !data.connected ? (
          <Button variant="contained" onClick={connect} disabled={authorize.isPending}>
            {authorize.isPending ? 'Opening Shippo…' : 'Connect Shippo'}
          </Button>
        ) : null}
        {data?.connected ? (
          <>
            <Typography variant="body2" sx={{ mb: 1.5 }}>
              Connected{data.connectedAt ? ` since ${new Date(data.connectedAt).toLocaleDateString()}` : ''}.
            </Typography>
            <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
              <Button
                variant="outlined"
                onClick={() => orders.mutate(undefined)}
                disabled={orders.isPending}
              >
                {orders.isPending ? 'Reading your Shippo orders…' : 'Show my Shippo orders'}
              </Button>
              <Button color="error" onClick={() => setConfirmingDisconnect(true)}>
                Disconnect
              </Button>
            </Box>
            {orders.error ? (
              <Alert severity="error" sx={{ mt: 2 }}>
                {orders.error.message}
              </Alert>
            ) : null}
            {orders.data ? <ShippoOrdersTable orders={orders.data.orders} /> : null}
          </>
        ) : null}
      </CardContent>
      <ConfirmDialog
        open={confirmingDisconnect}
        title="Disconnect Shippo?"
        confirmLabel="Disconnect"
        busy={disconnect.isPending}
        onConfirm={() =>
          disconnect.mutate(undefined, {
            onSuccess: () => {
              orders.reset();
              showToast('Shippo disconnected');
            },
            onError: (error) => showToast(error.message, 'error'),
            onSettled: () => setConfirmingDisconnect(false),
          })
        }
        onCancel={() => setConfirmingDisconnect(false)}
      >
        Layerline forgets its access to your Shippo account. Labels already bought stay valid.
      </ConfirmDialog>
    </Card>
  );
}

function ShippoOrdersTable({ orders }: { orders: ShippoOrder[] }) {
  if (orders.length === 0) {
    return (
      <Alert severity="info" sx={{ mt: 2 }}>
        Your Shippo account has no orders.
      </Alert>
    );
  }
  return (
    <TableContainer sx={{ mt: 2 }}>
      <Table size="small" aria-label="Your Shippo orders" data-testid="shippo-orders">
        <TableHead>
          <TableRow>
            <TableCell>Order</TableCell>
            <TableCell>Status</TableCell>
            <TableCell>Placed</TableCell>
            <TableCell>Ship to</TableCell>
            <TableCell align="right">Items</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {orders.map((order) => (
            <TableRow key={order.objectId}>
              <TableCell>{order.orderNumber}</TableCell>
              <TableCell>{order.status}</TableCell>
              <TableCell>{order.placedAt ? new Date(order.placedAt).toLocaleDateString() : '—'}</TableCell>
              <TableCell>
                {order.toName}
                {order.toCountry ? ` (${order.toCountry})` : ''}
              </TableCell>
              <TableCell align="right">{order.itemCount}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
