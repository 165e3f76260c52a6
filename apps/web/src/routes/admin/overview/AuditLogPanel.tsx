import Alert from '@mui/material/Alert';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import type { AuditEntry } from '@layerline/contracts';
import { useAuditLog } from '../../../api/admin.ts';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { AdminPanel } from './AdminPanel.tsx';
import { formatDateTime } from './format-date.ts';

const AUDIT_LIMIT = 50;

/** Renders the free-form detail of an audit entry as "key: value" pairs. */
function describeDetail(entry: AuditEntry): string {
  return Object.entries(entry.detail)
    .map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join(' · ');
}

export function AuditLogPanel() {
  const pages = useCursorPages('');
  const audit = useAuditLog(AUDIT_LIMIT, pages.cursor);
  return (
    <AdminPanel
      title="Audit log"
      subtitle={`Administrative actions, newest first, ${AUDIT_LIMIT} a page`}
      testId="admin-audit"
    >
      {audit.isError ? <Alert severity="error">{audit.error.message}</Alert> : null}
      {audit.isPending ? <Skeleton variant="rounded" height={160} /> : null}
      {audit.data?.entries.length === 0 ? (
        <Typography color="text.secondary">Nothing has been recorded yet.</Typography>
      ) : null}
      <List dense sx={{ maxHeight: 420, overflowY: 'auto' }}>
        {audit.data?.entries.map((entry) => (
          <ListItem key={entry.id} divider alignItems="flex-start" disableGutters>
            <ListItemText
              primary={
                <>
                  <Typography component="span" variant="body2" sx={{ fontWeight: 600 }}>
                    {entry.action}
                  </Typography>
                  <Typography component="span" variant="body2" color="text.secondary">
                    {' '}
                    by {entry.actorEmail ?? 'system'}
                  </Typography>
                </>
              }
              secondary={[formatDateTime(entry.createdAt), describeDetail(entry)].filter(Boolean).join(' — ')}
            />
          </ListItem>
        ))}
      </List>
      <CursorPager pages={pages} nextCursor={audit.data?.nextCursor} label="Pages of the audit log" />
    </AdminPanel>
  );
}
