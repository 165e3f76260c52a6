import { useState, type FormEvent } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import TextField from '@mui/material/TextField';
import { discordMessageInputSchema } from '@layerline/contracts';
import { useDiscordStatus, useSendDiscordMessage } from '../../../api/discord.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { AdminPanel } from './AdminPanel.tsx';

/** The farm's Discord channel: whether alerts reach it, and a test message. */
export function DiscordPanel() {
  const status = useDiscordStatus();
  return (
    <AdminPanel
      title="Discord"
      subtitle="New orders, failed payments, parts that failed twice, dead-lettered jobs and printers going offline"
      testId="admin-discord"
    >
      {status.isError ? <Alert severity="error">{status.error.message}</Alert> : null}
      {status.isPending ? <Skeleton variant="rounded" height={120} /> : null}
      {status.data ? (
        <>
          {status.data.configured ? (
            <Alert severity="success" sx={{ mb: 2 }}>
              The farm’s alerts are posted to its Discord channel (DISCORD_WEBHOOK_URL).
            </Alert>
          ) : (
            <Alert severity="info" sx={{ mb: 2 }} data-testid="discord-not-configured">
              No Discord webhook is configured: alerts are only written to the server log. Set
              DISCORD_WEBHOOK_URL to a channel webhook’s URL and restart to post them to Discord.
            </Alert>
          )}
          <TestMessageForm configured={status.data.configured} />
        </>
      ) : null}
    </AdminPanel>
  );
}

function TestMessageForm({ configured }: { configured: boolean }) {
  const { showToast } = useToast();
  const send = useSendDiscordMessage();
  const [message, setMessage] = useState('Test message from Layerline');
  const [error, setError] = useState<string | null>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = discordMessageInputSchema.safeParse({ message });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'Check the message');
      return;
    }
    setError(null);
    send.mutate(parsed.data, {
      onSuccess: (result) =>
        showToast(
          result.delivered
            ? 'Posted to the Discord channel'
            : 'No webhook configured: the message was written to the server log',
        ),
      onError: (failure) => showToast(failure.message, 'error'),
    });
  }

  return (
    <Box
      component="form"
      noValidate
      onSubmit={submit}
      aria-label="Send a Discord message"
      sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'flex-start' }}
    >
      <TextField
        label="Message"
        size="small"
        value={message}
        onChange={(event) => setMessage(event.target.value)}
        error={Boolean(error)}
        helperText={error ?? 'Mentions such as @everyone never ping anyone.'}
        sx={{ flex: '1 1 320px' }}
        slotProps={{ htmlInput: { maxLength: 2000 } }}
      />
      <Button type="submit" variant="contained" disabled={send.isPending}>
        {send.isPending ? 'Sending…' : configured ? 'Send to Discord' : 'Send (to the log)'}
      </Button>
    </Box>
  );
}
