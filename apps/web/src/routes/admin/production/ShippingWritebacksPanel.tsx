import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useFailedWritebacks, useRetryWriteback, type FailedWriteback } from '../../../api/shipping.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';

/** Tracking that could not be sent back to the marketplace (or API webhook) after every retry. */
export function ShippingWritebacksPanel() {
  const writebacks = useFailedWritebacks();
  const retry = useRetryWriteback();
  const { showToast } = useToast();
  const items = writebacks.data?.items ?? [];

  const retryOne = (item: FailedWriteback) =>
    retry.mutate(item.shipmentId, {
      onSuccess: () => showToast(`Tracking of order ${item.orderNumber} sent again`),
      onError: (error) => showToast(`Order ${item.orderNumber}: ${error.message}`, 'error'),
    });

  if (writebacks.isPending) return <CircularProgress size={24} aria-label="Loading failed write-backs" />;
  if (writebacks.error) return <Alert severity="error">{writebacks.error.message}</Alert>;
  if (items.length === 0) return <Alert severity="success">Every marketplace has its tracking.</Alert>;
  return (
    <TableContainer>
      <Table size="small" aria-label="Tracking write-backs that failed" data-testid="failed-writebacks">
        <TableHead>
          <TableRow>
            <TableCell>Order</TableCell>
            <TableCell>Marketplace</TableCell>
            <TableCell>Tracking</TableCell>
            <TableCell>Why</TableCell>
            <TableCell align="right">Tries</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((item) => (
            <TableRow key={item.shipmentId}>
              <TableCell>{item.orderNumber}</TableCell>
              <TableCell>{item.platform}</TableCell>
              <TableCell sx={{ fontFamily: 'monospace' }}>{item.trackingNumber}</TableCell>
              <TableCell>
                <Typography variant="body2">{item.error}</Typography>
                <Typography variant="caption" color="text.secondary">
                  last tried {new Date(item.updatedAt).toLocaleString()}
                </Typography>
              </TableCell>
              <TableCell align="right">{item.attempts}</TableCell>
              <TableCell align="right">
                <Button
                  size="small"
                  onClick={() => retryOne(item)}
                  disabled={retry.isPending && retry.variables === item.shipmentId}
                >
                  Retry
                </Button>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
