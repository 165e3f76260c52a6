import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import PictureAsPdfOutlinedIcon from '@mui/icons-material/PictureAsPdfOutlined';
import type { PackingOrder } from '@layerline/contracts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { packingSlipUrl, usePackOrder } from '../../../api/production.ts';

function PackingCard({ order, onPacked }: { order: PackingOrder; onPacked?(orderId: string): void }) {
  const pack = usePackOrder();
  const { showToast } = useToast();
  const [message, setMessage] = useState('');

  const confirm = () =>
    pack.mutate(
      { orderId: order.orderId, input: { message } },
      {
        onSuccess: () => {
          showToast(`Order ${order.orderNumber} packed`);
          onPacked?.(order.orderId);
        },
        onError: (error) => showToast(error.message, 'error'),
      },
    );

  return (
    <Card variant="outlined" data-testid="packing-order" data-order-id={order.orderId}>
      <CardContent>
        <Stack
          direction="row"
          spacing={1}
          useFlexGap
          sx={{ justifyContent: 'space-between', alignItems: 'baseline', flexWrap: 'wrap', mb: 1 }}
        >
          <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700 }}>
            Order {order.orderNumber}
          </Typography>
          <Typography variant="caption" color="text.secondary">
            for {order.customerName} · {order.sellerName} · printed{' '}
            {new Date(order.printedAt).toLocaleString()}
          </Typography>
        </Stack>
        <Table size="small" aria-label={`Pick list of order ${order.orderNumber}`} sx={{ mb: 2 }}>
          <TableHead>
            <TableRow>
              <TableCell>Item</TableCell>
              <TableCell align="right">Qty</TableCell>
              <TableCell>Parts</TableCell>
              <TableCell>Packaging</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {order.pickList.map((item, index) => (
              <TableRow key={`${item.sku}-${index}`}>
                <TableCell>
                  <Typography variant="body2">{item.title}</Typography>
                  <Typography variant="caption" color="text.secondary">
                    <code>{item.sku}</code>
                  </Typography>
                </TableCell>
                <TableCell align="right">{item.quantity}</TableCell>
                <TableCell>
                  <Box component="ul" sx={{ m: 0, pl: 2 }}>
                    {item.parts.map((part, i) => (
                      <Typography component="li" variant="body2" key={`${part.name}-${i}`}>
                        {part.quantity} × {part.name}
                      </Typography>
                    ))}
                  </Box>
                </TableCell>
                <TableCell>{item.packaging}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'center' } }}>
          <TextField
            size="small"
            label="Message on the packing slip"
            placeholder="Thank you for your order!"
            value={message}
            onChange={(event) => setMessage(event.target.value)}
            slotProps={{ htmlInput: { maxLength: 500 } }}
            sx={{ flex: 1 }}
          />
          <Button
            component="a"
            href={packingSlipUrl(order.orderId, message)}
            target="_blank"
            rel="noopener"
            startIcon={<PictureAsPdfOutlinedIcon />}
          >
            Packing slip (PDF)
          </Button>
          <Button variant="contained" disabled={pack.isPending} onClick={confirm}>
            Confirm packed
          </Button>
        </Stack>
      </CardContent>
    </Card>
  );
}

/**
 * Orders printed in full, waiting to be packed: the pick list, the slip and the confirmation.
 * `onPacked` hears each order confirmed packed (its shipping step opens next).
 */
export function PackingPanel({ orders, onPacked }: { orders: PackingOrder[]; onPacked?(orderId: string): void }) {
  if (orders.length === 0) return <Alert severity="info">Nothing to pack.</Alert>;
  return (
    <Stack spacing={1.5}>
      {orders.map((order) => (
        <PackingCard key={order.orderId} order={order} onPacked={onPacked} />
      ))}
    </Stack>
  );
}
