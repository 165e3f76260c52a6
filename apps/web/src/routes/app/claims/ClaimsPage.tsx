import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { CLAIM_KIND_LABELS, formatCents } from '@layerline/contracts';
import { useClaims } from '../../../api/claims.ts';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { date } from '../orders/order-format.ts';
import { ClaimStatusChip } from './claim-format.tsx';

/** /claims: the seller's claims and what became of them. A claim is filed from its order (Orders → the order). */
export default function ClaimsPage() {
  const claims = useClaims('mine');
  const items = claims.data?.items ?? [];
  return (
    <Box>
      <PageHeading title="Claims" subtitle="Parts that arrived damaged or misprinted, or parcels that never came. File a claim from the order’s page (Orders)." />
      {claims.isError ? <Alert severity="error">{claims.error.message}</Alert> : null}
      {claims.isPending ? <Skeleton variant="rounded" height={200} /> : null}
      {claims.data && items.length === 0 ? (
        <Typography color="text.secondary" data-testid="claims-empty">
          You have filed no claims.
        </Typography>
      ) : null}
      {items.length > 0 ? (
        <TableContainer component={Paper}>
          <Table size="small" aria-label="Claims">
            <TableHead>
              <TableRow>
                <TableCell>Order</TableCell>
                <TableCell>Filed</TableCell>
                <TableCell>Problem</TableCell>
                <TableCell>Parts</TableCell>
                <TableCell>Status</TableCell>
                <TableCell>Decision</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {items.map((claim) => (
                <TableRow key={claim.id} data-testid="claim-row">
                  <TableCell>
                    <Link component={RouterLink} to={`/orders?order=${claim.orderId}`}>
                      {claim.orderNumber}
                    </Link>
                  </TableCell>
                  <TableCell>{date(claim.createdAt)}</TableCell>
                  <TableCell>
                    {CLAIM_KIND_LABELS[claim.kind]}
                    <Typography variant="body2" color="text.secondary">
                      {claim.description}
                    </Typography>
                  </TableCell>
                  <TableCell>{claim.parts.map((part) => part.partName).join(', ')}</TableCell>
                  <TableCell>
                    <ClaimStatusChip status={claim.status} />
                  </TableCell>
                  <TableCell>
                    {claim.refundCents !== null ? `${formatCents(claim.refundCents, 'USD')} refunded. ` : ''}
                    {claim.decisionNote}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      ) : null}
    </Box>
  );
}
