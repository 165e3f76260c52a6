import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { useClaimStats } from '../../../api/claims.ts';
import { AdminPanel } from './AdminPanel.tsx';

/** Claims per printer and per material: a printer or a material that spoils parts shows here. */
export function ClaimsStatsPanel() {
  const stats = useClaimStats();
  return (
    <AdminPanel
      title="Claims"
      subtitle="Claims on delivered orders per printer and per material (declined claims are left out)"
      testId="admin-claims-stats"
      action={
        <Button component={RouterLink} to="/admin-claims" size="small">
          Open the queue
        </Button>
      }
    >
      {stats.isError ? <Alert severity="error">{stats.error.message}</Alert> : null}
      {stats.isPending ? <Skeleton variant="rounded" height={120} /> : null}
      {stats.data ? (
        <>
          <Typography variant="body2" sx={{ mb: 2 }}>
            {stats.data.total} claims, {stats.data.open} waiting for a decision.
          </Typography>
          <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, gap: 3 }}>
            <CountTable label="Claims per printer" rows={stats.data.byPrinter.map((row) => [row.printerName, row.claims])} heading="Printer" />
            <CountTable label="Claims per material" rows={stats.data.byMaterial.map((row) => [row.material, row.claims])} heading="Material" />
          </Box>
        </>
      ) : null}
    </AdminPanel>
  );
}

function CountTable({ label, heading, rows }: { label: string; heading: string; rows: [string, number][] }) {
  return (
    <Table size="small" aria-label={label}>
      <TableHead>
        <TableRow>
          <TableCell>{heading}</TableCell>
          <TableCell align="right">Claims</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {rows.length === 0 ? (
          <TableRow>
            <TableCell colSpan={2}>None</TableCell>
          </TableRow>
        ) : (
          rows.map(([name, claims]) => (
            <TableRow key={name}>
              <TableCell>{name}</TableCell>
              <TableCell align="right">{claims}</TableCell>
            </TableRow>
          ))
        )}
      </TableBody>
    </Table>
  );
}
