import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Link from '@mui/material/Link';
import MenuItem from '@mui/material/MenuItem';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import {
  CLAIM_KIND_LABELS,
  CLAIM_STATUS_LABELS,
  CLAIM_STATUSES,
  claimDecisionInputSchema,
  formatCents,
  type Claim,
  type ClaimStatus,
} from '@layerline/contracts';
import { useClaims, useDecideClaim } from '../../../api/claims.ts';
import { shipmentLabelUrl } from '../../../api/shipping.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { ClaimStatusChip } from '../../app/claims/claim-format.tsx';
import { dateTime } from '../../app/orders/order-format.ts';

/** /admin-claims: the claims queue. Each claim with its photos and its parts' production record, and the decision. */
export default function AdminClaimsPage() {
  const [status, setStatus] = useState<ClaimStatus | ''>('open');
  const claims = useClaims('admin', status);
  const items = claims.data?.items ?? [];
  return (
    <Box>
      <PageHeading title="Claims Queue" subtitle="Sellers’ claims on delivered (or lost) orders: look at the photos and how the parts were made, then reprint, refund or decline." />
      <TextField
        select
        size="small"
        label="Status"
        value={status}
        onChange={(event) => setStatus(event.target.value as ClaimStatus | '')}
        sx={{ width: 220, mb: 2 }}
        slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
      >
        <MenuItem value="">Any status</MenuItem>
        {CLAIM_STATUSES.map((s) => (
          <MenuItem key={s} value={s}>
            {CLAIM_STATUS_LABELS[s]}
          </MenuItem>
        ))}
      </TextField>
      {claims.isError ? <Alert severity="error">{claims.error.message}</Alert> : null}
      {claims.isPending ? <Skeleton variant="rounded" height={240} /> : null}
      {claims.data && items.length === 0 ? (
        <Typography color="text.secondary" data-testid="claims-queue-empty">
          No claims{status ? ` ${CLAIM_STATUS_LABELS[status].toLowerCase()}` : ''}.
        </Typography>
      ) : null}
      <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
        {items.map((claim) => (
          <ClaimCard key={claim.id} claim={claim} />
        ))}
      </Box>
    </Box>
  );
}

function ClaimCard({ claim }: { claim: Claim }) {
  return (
    <Card component="section" aria-label={`Claim on order ${claim.orderNumber}`} data-testid="claim-card">
      <CardContent>
        <Box sx={{ display: 'flex', justifyContent: 'space-between', flexWrap: 'wrap', gap: 1 }}>
          <Typography variant="h6" component="h2">
            Order {claim.orderNumber} · {CLAIM_KIND_LABELS[claim.kind]}
          </Typography>
          <ClaimStatusChip status={claim.status} />
        </Box>
        <Typography variant="body2" color="text.secondary">
          {claim.sellerName} · filed {dateTime(claim.createdAt)} ·{' '}
          <Link component={RouterLink} to={`/admin-orders?order=${claim.orderId}`}>
            Open the order
          </Link>
        </Typography>
        <Typography sx={{ my: 1 }}>{claim.description}</Typography>
        {claim.photos.length > 0 ? (
          <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mb: 2 }}>
            {claim.photos.map((photo, index) => (
              <Link key={photo.id} href={photo.url} target="_blank" rel="noopener">
                <Box component="img" src={photo.url} alt={`Photo ${index + 1} of the claim`} sx={{ height: 120, borderRadius: 1, border: 1, borderColor: 'divider' }} />
              </Link>
            ))}
          </Box>
        ) : null}
        <Typography variant="overline">Production record</Typography>
        <Table size="small" aria-label="Production record" sx={{ mb: 2 }}>
          <TableHead>
            <TableRow>
              <TableCell>Part</TableCell>
              <TableCell>Material</TableCell>
              <TableCell>Printer</TableCell>
              <TableCell>QC by</TableCell>
              <TableCell>Printed</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {claim.parts.map((part) => (
              <TableRow key={part.printJobId}>
                <TableCell>
                  {part.partName}
                  {part.reprintJobId ? ' (reprint queued)' : ''}
                </TableCell>
                <TableCell>
                  {part.material} {part.colour}
                </TableCell>
                <TableCell>{part.printerName ?? '—'}</TableCell>
                <TableCell>{part.qcBy ?? '—'}</TableCell>
                <TableCell>{part.printedAt ? dateTime(part.printedAt) : '—'}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        {claim.status === 'open' ? (
          <DecisionForm claim={claim} />
        ) : (
          <Typography variant="body2" data-testid="claim-decision">
            {CLAIM_STATUS_LABELS[claim.status]}
            {claim.refundCents !== null ? ` · ${formatCents(claim.refundCents)} refunded` : ''}
            {claim.decisionNote ? ` · ${claim.decisionNote}` : ''}
            {claim.replacementShipmentId ? (
              <>
                {' · '}
                <Link href={shipmentLabelUrl(claim.replacementShipmentId)} target="_blank" rel="noopener">
                  Replacement label
                </Link>
              </>
            ) : null}
          </Typography>
        )}
      </CardContent>
    </Card>
  );
}

function DecisionForm({ claim }: { claim: Claim }) {
  const decide = useDecideClaim();
  const { showToast } = useToast();
  const [note, setNote] = useState('');
  const [refundDollars, setRefundDollars] = useState('');
  const [error, setError] = useState<string | null>(null);

  function send(decision: 'reprint' | 'refund' | 'decline') {
    const amountCents = refundDollars.trim() ? Math.round(Number(refundDollars) * 100) : undefined;
    const parsed = claimDecisionInputSchema.safeParse(decision === 'refund' ? { decision, note, amountCents } : { decision, note });
    if (!parsed.success) return setError(parsed.error.issues[0]!.message);
    setError(null);
    decide.mutate(
      { claimId: claim.id, decision: parsed.data },
      {
        onSuccess: (decided) => showToast(`Claim on order ${decided.orderNumber}: ${CLAIM_STATUS_LABELS[decided.status].toLowerCase()}`, 'success'),
        onError: (failure) => setError(failure.message),
      },
    );
  }

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1.5 }}>
      <TextField size="small" label="Note to the seller (required to decline)" value={note} onChange={(e) => setNote(e.target.value)} />
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
        <Button variant="contained" disabled={decide.isPending} onClick={() => send('reprint')}>
          Reprint (free)
        </Button>
        <TextField size="small" label="Refund, $ (empty: all left)" value={refundDollars} onChange={(e) => setRefundDollars(e.target.value)} sx={{ width: 200 }} inputMode="decimal" />
        <Button variant="outlined" disabled={decide.isPending} onClick={() => send('refund')}>
          Refund
        </Button>
        <Button color="error" disabled={decide.isPending} onClick={() => send('decline')}>
          Decline
        </Button>
      </Box>
      {error ? (
        <Alert severity="error" role="alert">
          {error}
        </Alert>
      ) : null}
    </Box>
  );
}
