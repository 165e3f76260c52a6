import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import SendIcon from '@mui/icons-material/SendOutlined';
import { EMAIL_STATUS_LABELS, EMAIL_STATUSES, type EmailStatus } from '@layerline/contracts';
import { useEmailOutbox } from '../../../api/notifications.ts';
import { useDetailParam } from '../../../app/navigation/use-detail-param.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { formatDateTime } from '../overview/format-date.ts';
import { useDebouncedValue } from '../overview/use-debounced-value.ts';
import { EmailMessageDialog } from './EmailMessageDialog.tsx';
import { EmailStatusChip, emailKindLabel } from './email-status.tsx';
import { SendEmailDialog } from './SendEmailDialog.tsx';

const PAGE_SIZE = 25;
/** /admin-outbox (admins): every email the product made, newest first; read one; write one (sendCustomEmail). */
export default function EmailOutboxPage() {
  const [status, setStatus] = useState<EmailStatus | ''>('');
  const [searchInput, setSearchInput] = useState('');
  const search = useDebouncedValue(searchInput.trim(), 300);
  const filter = { status, search };
  const pages = useCursorPages(JSON.stringify(filter));
  const outbox = useEmailOutbox(filter, pages.cursor, PAGE_SIZE);
  const detail = useDetailParam('message');
  const [writing, setWriting] = useState(false);
  const { showToast } = useToast();
  const items = outbox.data?.items ?? [];

  return (
    <Box>
      <PageHeading
        title="Email Outbox"
        subtitle="Every email Layerline made, with its status. Without an SMTP server (SMTP_URL) they stay here, unsent, for you to read."
        actions={
          <Button variant="contained" startIcon={<SendIcon />} onClick={() => setWriting(true)}>
            Send email
          </Button>
        }
      />
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', mb: 2 }}>
        <TextField
          size="small"
          label="Recipient"
          placeholder="Part of an address"
          value={searchInput}
          onChange={(event) => setSearchInput(event.target.value)}
          fullWidth={false}
          sx={{ width: { xs: '100%', sm: 300 } }}
        />
        <TextField
          select
          size="small"
          label="Status"
          value={status}
          onChange={(event) => setStatus(event.target.value as EmailStatus | '')}
          fullWidth={false}
          sx={{ width: { xs: '100%', sm: 200 } }}
          slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
        >
          <MenuItem value="">Any status</MenuItem>
          {EMAIL_STATUSES.map((s) => (
            <MenuItem key={s} value={s}>
              {EMAIL_STATUS_LABELS[s]}
            </MenuItem>
          ))}
        </TextField>
      </Box>
      {outbox.isError ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          {outbox.error.message}
        </Alert>
      ) : null}
      {outbox.isPending ? <Skeleton variant="rounded" height={240} /> : null}
      {outbox.data && items.length === 0 ? <Alert severity="info">No emails{search || status ? ' match these filters' : ' yet'}.</Alert> : null}
      {items.length > 0 ? (
        <TableContainer component={Paper} variant="outlined">
          <Table size="small" aria-label="Emails" data-testid="email-outbox">
            <TableHead>
              <TableRow>
                <TableCell>Created</TableCell>
                <TableCell>To</TableCell>
                <TableCell>Subject</TableCell>
                <TableCell>Kind</TableCell>
                <TableCell>Status</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {items.map((message) => (
                <TableRow
                  key={message.id}
                  hover
                  data-testid="email-row"
                  sx={{ cursor: 'pointer' }}
                  onClick={() => detail.open(message.id)}
                >
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(message.createdAt)}</TableCell>
                  <TableCell>{message.toAddress}</TableCell>
                  <TableCell>
                    <Button
                      variant="text"
                      size="small"
                      sx={{ textTransform: 'none', textAlign: 'left', p: 0, minWidth: 0 }}
                      onClick={(event) => {
                        event.stopPropagation();
                        detail.open(message.id);
                      }}
                    >
                      {message.subject}
                    </Button>
                  </TableCell>
                  <TableCell>
                    <Typography variant="body2" color="text.secondary">
                      {emailKindLabel(message.templateType)}
                    </Typography>
                  </TableCell>
                  <TableCell>
                    <EmailStatusChip status={message.status} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      ) : null}
      <CursorPager pages={pages} nextCursor={outbox.data?.nextCursor} label="Pages of emails" />
      {detail.id ? <EmailMessageDialog id={detail.id} onClose={detail.close} /> : null}
      {writing ? (
        <SendEmailDialog
          onClose={() => setWriting(false)}
          onSent={(message) => {
            setWriting(false);
            showToast(message.status === 'outbox' ? 'Email kept in the outbox (no SMTP server)' : 'Email queued for sending', 'success');
            detail.open(message.id);
          }}
        />
      ) : null}
    </Box>
  );
}
