import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useQuery } from '@tanstack/react-query';
import { PLATFORM_LABELS, type FailedDelivery, type Platform } from '@layerline/contracts';
import { apiFetch } from '../../../api/client.ts';
import { AdminPanel } from './AdminPanel.tsx';
import { formatDateTime } from './format-date.ts';

const LIMIT = 50;

/**
 * Marketplace webhook deliveries that could not be read as orders (docs/connectors.md): kept with
 * the marketplace's words so an admin can see what a marketplace sent and why nothing came of it.
 * The reconciliation poll still brings the order when the marketplace has it right.
 */
export function FailedDeliveriesPanel() {
  const failed = useQuery({
    queryKey: ['admin', 'marketplace-deliveries', 'failed'],
    queryFn: () =>
      apiFetch<{ items: FailedDelivery[] }>(`/api/admin/marketplace-deliveries/failed?limit=${LIMIT}`),
  });

  return (
    <AdminPanel
      title="Marketplace deliveries that failed"
      subtitle="Webhooks whose payload was not a readable order: kept with the reason, not retried"
      testId="admin-failed-deliveries"
    >
      {failed.isError ? <Alert severity="error">{failed.error.message}</Alert> : null}
      {failed.isPending ? <Skeleton variant="rounded" height={80} /> : null}
      {failed.data && failed.data.items.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          None: every marketplace delivery was read.
        </Typography>
      ) : null}
      {failed.data && failed.data.items.length > 0 ? (
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small" aria-label="Failed marketplace deliveries">
            <TableHead>
              <TableRow>
                <TableCell>Received</TableCell>
                <TableCell>Marketplace</TableCell>
                <TableCell>Shop</TableCell>
                <TableCell>Topic</TableCell>
                <TableCell>Why</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {failed.data.items.map((delivery) => (
                <TableRow key={delivery.id} data-testid="failed-delivery">
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(delivery.receivedAt)}</TableCell>
                  <TableCell>{PLATFORM_LABELS[delivery.platform as Platform] ?? delivery.platform}</TableCell>
                  <TableCell>{delivery.shopName ?? '—'}</TableCell>
                  <TableCell>{delivery.topic}</TableCell>
                  <TableCell>{delivery.reason}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Box>
      ) : null}
    </AdminPanel>
  );
}
