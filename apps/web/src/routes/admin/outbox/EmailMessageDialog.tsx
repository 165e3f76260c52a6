import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Skeleton from '@mui/material/Skeleton';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import { useEmailMessage } from '../../../api/notifications.ts';
import { formatDateTime } from '../overview/format-date.ts';
import { EmailStatusChip, emailKindLabel } from './email-status.tsx';

/**
 * One email as its recipient sees it: the HTML in a sandboxed frame (no scripts, no navigation of
 * this page, its own opaque origin) and the plain text.
 */
export function EmailMessageDialog({ id, onClose }: { id: string; onClose(): void }) {
  const message = useEmailMessage(id);
  const [view, setView] = useState<'html' | 'text'>('html');
  const data = message.data;
  return (
    <Dialog open onClose={onClose} maxWidth="md" fullWidth aria-labelledby="email-message-title">
      <DialogTitle id="email-message-title">{data?.subject ?? 'Email'}</DialogTitle>
      <DialogContent dividers>
        {message.isError ? <Alert severity="error">{message.error.message}</Alert> : null}
        {message.isPending ? <Skeleton variant="rounded" height={320} /> : null}
        {data ? (
          <>
            <Box sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 2, rowGap: 0.5, mb: 2 }}>
              <Typography variant="body2" color="text.secondary">To</Typography>
              <Typography variant="body2" data-testid="email-to">{data.toAddress}</Typography>
              <Typography variant="body2" color="text.secondary">Kind</Typography>
              <Typography variant="body2">{emailKindLabel(data.templateType)}</Typography>
              <Typography variant="body2" color="text.secondary">Status</Typography>
              <Box>
                <EmailStatusChip status={data.status} />
                {data.attempts > 0 ? (
                  <Typography component="span" variant="caption" color="text.secondary" sx={{ ml: 1 }}>
                    {data.attempts} attempt{data.attempts === 1 ? '' : 's'}
                    {data.sentAt ? ` · sent ${formatDateTime(data.sentAt)}` : ''}
                  </Typography>
                ) : null}
              </Box>
              <Typography variant="body2" color="text.secondary">Created</Typography>
              <Typography variant="body2">{formatDateTime(data.createdAt)}</Typography>
            </Box>
            {data.lastError ? (
              <Alert severity={data.status === 'failed' ? 'error' : 'warning'} sx={{ mb: 2 }}>
                Last error: {data.lastError}
              </Alert>
            ) : null}
            <Tabs value={view} onChange={(_event, next: 'html' | 'text') => setView(next)} sx={{ mb: 1 }}>
              <Tab value="html" label="HTML" />
              <Tab value="text" label="Plain text" />
            </Tabs>
            {view === 'html' ? (
              <Box
                component="iframe"
                title="Email as HTML"
                sandbox=""
                srcDoc={data.html}
                sx={{ width: '100%', height: 480, border: 1, borderColor: 'divider', borderRadius: 1, bgcolor: '#fff' }}
              />
            ) : (
              <Box
                component="pre"
                data-testid="email-text"
                sx={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', fontFamily: 'monospace', fontSize: 13, m: 0, p: 2, bgcolor: 'action.hover', borderRadius: 1 }}
              >
                {data.text}
              </Box>
            )}
          </>
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
