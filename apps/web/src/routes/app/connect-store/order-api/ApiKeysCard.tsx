import { useState, type FormEvent } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  useApiKeys,
  useCreateApiKey,
  useRevokeApiKey,
  type ApiKey,
  type CreatedApiKey,
} from '../../../../api/order-api.ts';
import { useToast } from '../../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../../components/ConfirmDialog.tsx';
import { SecretReveal } from './SecretReveal.tsx';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/**
 * Create, list and revoke order API keys. A new key is shown once. Without `allowCreate` (a
 * seller out of the beta, on their account settings) the card only lists and revokes.
 */
export function ApiKeysCard({ allowCreate = true }: { allowCreate?: boolean } = {}) {
  const { showToast } = useToast();
  const keys = useApiKeys();
  const create = useCreateApiKey();
  const revoke = useRevokeApiKey();
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      setNameError('Give the key a name, like the shop or system that will use it');
      return;
    }
    setNameError(undefined);
    create.mutate(trimmed, {
      onSuccess: (key) => {
        setCreated(key);
        setName('');
      },
      onError: (error) => showToast(error.message, 'error'),
    });
  }

  function confirmRevoke() {
    if (!revoking) return;
    revoke.mutate(revoking.id, {
      onSuccess: () => showToast(`Key “${revoking.name}” revoked`),
      onError: (error) => showToast(error.message, 'error'),
      onSettled: () => setRevoking(null),
    });
  }

  const items = keys.data ?? [];
  return (
    <Card component="section" aria-label="API keys" data-testid="api-keys-card">
      <CardContent sx={{ p: { xs: 2.5, sm: 3 } }}>
        <Typography variant="h6" component="h2">
          API keys
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {allowCreate
            ? 'Your own store or system sends orders with a key. Anyone holding a key can place orders for you: keep keys secret, one per system, and revoke one you no longer use.'
            : 'The order API is open to beta testers, so these keys no longer place orders. They stay yours to see and revoke; a revoked key never works again, even if you rejoin the beta.'}
        </Typography>

        {created ? (
          <Box sx={{ mb: 2 }}>
            <SecretReveal
              title={`Your new key “${created.name}”`}
              secret={created.key}
              testId="new-api-key"
              onDone={() => setCreated(null)}
            />
          </Box>
        ) : null}

        <Box
          component="form"
          noValidate
          onSubmit={submit}
          hidden={!allowCreate}
          sx={{
            display: allowCreate ? 'flex' : 'none',
            gap: 1,
            alignItems: 'flex-start',
            mb: 2,
            flexWrap: 'wrap',
          }}
        >
          <TextField
            label="Key name"
            size="small"
            value={name}
            onChange={(event) => setName(event.target.value)}
            error={Boolean(nameError)}
            helperText={nameError ?? 'For example: My WooCommerce store'}
            slotProps={{ htmlInput: { maxLength: 80 } }}
            sx={{ flex: '1 1 240px' }}
          />
          <Button type="submit" variant="contained" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create key'}
          </Button>
        </Box>

        {keys.isError ? (
          <Typography color="error">Could not load your keys: {keys.error.message}</Typography>
        ) : items.length === 0 ? (
          <Typography color="text.secondary" variant="body2">
            {keys.isPending ? 'Loading your keys…' : 'No keys yet.'}
          </Typography>
        ) : (
          <Box sx={{ overflowX: 'auto' }}>
            <Table size="small" aria-label="Your API keys">
              <TableHead>
                <TableRow>
                  <TableCell>Name</TableCell>
                  <TableCell>Key</TableCell>
                  <TableCell>Created</TableCell>
                  <TableCell>Last used</TableCell>
                  <TableCell align="right">Status</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {items.map((key) => (
                  <TableRow key={key.id} data-testid="api-key-row">
                    <TableCell>{key.name}</TableCell>
                    <TableCell sx={{ fontFamily: 'monospace' }}>{key.prefix}…</TableCell>
                    <TableCell>{when(key.createdAt)}</TableCell>
                    <TableCell>{when(key.lastUsedAt)}</TableCell>
                    <TableCell align="right">
                      {key.revokedAt ? (
                        <Chip size="small" label="Revoked" />
                      ) : (
                        <Button size="small" color="error" onClick={() => setRevoking(key)}>
                          Revoke
                        </Button>
                      )}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Box>
        )}
      </CardContent>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Revoke key"
        busy={revoke.isPending}
        onConfirm={confirmRevoke}
        onCancel={() => setRevoking(null)}
      >
        Requests with “{revoking?.name}” will be refused at once. This cannot be undone.
      </ConfirmDialog>
    </Card>
  );
}
