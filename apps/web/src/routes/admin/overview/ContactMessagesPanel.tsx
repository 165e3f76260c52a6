import Accordion from '@mui/material/Accordion';
import AccordionDetails from '@mui/material/AccordionDetails';
import AccordionSummary from '@mui/material/AccordionSummary';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { useContactMessages } from '../../../api/admin.ts';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { AdminPanel } from './AdminPanel.tsx';
import { formatDateTime } from './format-date.ts';

const PAGE_SIZE = 50;

export function ContactMessagesPanel() {
  const pages = useCursorPages('');
  const messages = useContactMessages(PAGE_SIZE, pages.cursor);
  return (
    <AdminPanel
      title="Contact messages"
      subtitle="What visitors and sellers sent through Contact Us"
      testId="admin-contact-messages"
    >
      {messages.isError ? <Alert severity="error">{messages.error.message}</Alert> : null}
      {messages.isPending ? <Skeleton variant="rounded" height={160} /> : null}
      {messages.data?.messages.length === 0 ? (
        <Typography color="text.secondary">No messages yet.</Typography>
      ) : null}
      <Box sx={{ maxHeight: 420, overflowY: 'auto' }}>
        {messages.data?.messages.map((message) => (
          <Accordion
            key={message.id}
            disableGutters
            variant="outlined"
            sx={{ '&:before': { display: 'none' }, mb: 1, borderRadius: 2 }}
          >
            <AccordionSummary expandIcon={<ExpandMoreIcon />}>
              <Box sx={{ minWidth: 0 }}>
                <Typography variant="body2" sx={{ fontWeight: 600 }} noWrap>
                  {message.subject}
                </Typography>
                <Typography variant="caption" color="text.secondary">
                  {message.name} · {formatDateTime(message.createdAt)}
                  {message.userId ? ' · signed in' : ''}
                </Typography>
              </Box>
            </AccordionSummary>
            <AccordionDetails>
              <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap', mb: 1 }}>
                {message.message}
              </Typography>
              <Link
                href={`mailto:${message.email}?subject=${encodeURIComponent(`Re: ${message.subject}`)}`}
                variant="body2"
              >
                Reply to {message.email}
              </Link>
            </AccordionDetails>
          </Accordion>
        ))}
      </Box>
      <CursorPager pages={pages} nextCursor={messages.data?.nextCursor} label="Pages of contact messages" />
    </AdminPanel>
  );
}
