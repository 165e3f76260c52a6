import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import LinearProgress from '@mui/material/LinearProgress';
import Switch from '@mui/material/Switch';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { AdminUser, AdminUserFlags } from '@layerline/contracts';
import { useAdminUsers, useUnlockSignIn, useUpdateUserFlags } from '../../../api/admin.ts';
import { useAuth } from '../../../app/auth/AuthProvider.tsx';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { AdminPanel } from './AdminPanel.tsx';
import { formatDate } from './format-date.ts';
import { useDebouncedValue } from './use-debounced-value.ts';
import { SearchField } from '../../../components/SearchField.tsx';

const PAGE_SIZE = 20;

type Flag = keyof AdminUserFlags;

const FLAG_LABELS: Record<Flag, string> = {
  isBetaTester: 'Beta tester',
  isInternal: 'Internal',
  isAdmin: 'Admin',
};

function flagValue(user: AdminUser, flag: Flag): boolean {
  return flag === 'isAdmin' ? user.role === 'admin' : user[flag];
}

export function UsersPanel() {
  const { user: me } = useAuth();
  const { showToast } = useToast();
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search.trim(), 300);
  // A new search starts again at the first page.
  const pages = useCursorPages(debouncedSearch);
  const users = useAdminUsers(debouncedSearch, pages.cursor, PAGE_SIZE);
  const updateFlags = useUpdateUserFlags();
  const unlockSignIn = useUnlockSignIn();
  const [pendingAdminChange, setPendingAdminChange] = useState<{ user: AdminUser; value: boolean } | null>(
    null,
  );

  function applyFlag(user: AdminUser, flag: Flag, value: boolean) {
    updateFlags.mutate(
      { userId: user.id, flags: { [flag]: value } },
      {
        onSuccess: () =>
          showToast(`${FLAG_LABELS[flag]} ${value ? 'granted to' : 'removed from'} ${user.email}`),
        onError: (error) => showToast(error.message, 'error'),
        onSettled: () => setPendingAdminChange(null),
      },
    );
  }

  function unlock(user: AdminUser) {
    unlockSignIn.mutate(user.id, {
      onSuccess: (result) =>
        showToast(`Sign-in unlocked for ${user.email} (${result.failuresCleared} failed attempts forgotten)`),
      onError: (error) => showToast(error.message, 'error'),
    });
  }

  function toggle(user: AdminUser, flag: Flag, value: boolean) {
    // Admin rights are powerful; granting or removing them is confirmed first.
    if (flag === 'isAdmin') setPendingAdminChange({ user, value });
    else applyFlag(user, flag, value);
  }

  return (
    <AdminPanel
      title="Users"
      subtitle="Everyone with an account, newest first"
      testId="admin-users"
      action={
        <SearchField
          placeholder="Search name, email or business"
          label="Search users"
          value={search}
          onChange={setSearch}
          sx={{ width: { xs: '100%', sm: 320 } }}
        />
      }
    >
      {users.isError ? <Alert severity="error">{users.error.message}</Alert> : null}
      <Box sx={{ height: 4 }}>{users.isFetching ? <LinearProgress /> : null}</Box>
      <TableContainer sx={{ overflowX: 'auto' }}>
        <Table size="small" aria-label="Users">
          <TableHead>
            <TableRow>
              <TableCell>User</TableCell>
              <TableCell>Business</TableCell>
              <TableCell>Joined</TableCell>
              {Object.values(FLAG_LABELS).map((label) => (
                <TableCell key={label} align="center">
                  {label}
                </TableCell>
              ))}
              <TableCell>Sign-in</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {users.data?.items.map((user) => (
              <TableRow key={user.id} hover data-testid="admin-user-row" data-email={user.email}>
                <TableCell>
                  <Typography variant="body2" sx={{ fontWeight: 600 }}>
                    {user.name || '—'}
                    {user.id === me?.id ? <Chip label="You" size="small" sx={{ ml: 1 }} /> : null}
                  </Typography>
                  <Typography variant="body2" color="text.secondary">
                    {user.email}
                  </Typography>
                </TableCell>
                <TableCell>{user.businessName || '—'}</TableCell>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDate(user.createdAt)}</TableCell>
                {(Object.keys(FLAG_LABELS) as Flag[]).map((flag) => (
                  <TableCell key={flag} align="center">
                    <Switch
                      checked={flagValue(user, flag)}
                      onChange={(event) => toggle(user, flag, event.target.checked)}
                      disabled={updateFlags.isPending}
                      slotProps={{ input: { 'aria-label': `${FLAG_LABELS[flag]}: ${user.email}` } }}
                    />
                  </TableCell>
                ))}
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  {/* Paused for new browsers after too many failed sign-ins; the owner may ask an admin to end it. */}
                  {user.signInThrottledUntil ? (
                    <Chip
                      label={`Paused until ${new Date(user.signInThrottledUntil).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}`}
                      color="warning"
                      size="small"
                      sx={{ mr: 1 }}
                    />
                  ) : null}
                  <Button
                    size="small"
                    variant={user.signInThrottledUntil ? 'contained' : 'text'}
                    color={user.signInThrottledUntil ? 'warning' : 'inherit'}
                    onClick={() => unlock(user)}
                    disabled={unlockSignIn.isPending}
                    aria-label={`Unlock sign-in: ${user.email}`}
                  >
                    Unlock sign-in
                  </Button>
                </TableCell>
              </TableRow>
            ))}
            {users.data && users.data.items.length === 0 ? (
              <TableRow>
                <TableCell colSpan={7} align="center" sx={{ py: 4, color: 'text.secondary' }}>
                  No user matches “{debouncedSearch}”.
                </TableCell>
              </TableRow>
            ) : null}
          </TableBody>
        </Table>
      </TableContainer>
      <CursorPager pages={pages} nextCursor={users.data?.nextCursor} label="Pages of users" />
      <ConfirmDialog
        open={pendingAdminChange !== null}
        title={pendingAdminChange?.value ? 'Make this user an admin?' : 'Remove admin rights?'}
        confirmLabel={pendingAdminChange?.value ? 'Make admin' : 'Remove admin'}
        busy={updateFlags.isPending}
        onCancel={() => setPendingAdminChange(null)}
        onConfirm={() => {
          if (pendingAdminChange) applyFlag(pendingAdminChange.user, 'isAdmin', pendingAdminChange.value);
        }}
      >
        {pendingAdminChange?.value
          ? `${pendingAdminChange.user.email} will see every user, order and message, and can change other accounts.`
          : `${pendingAdminChange?.user.email ?? 'This user'} will lose access to the admin pages.`}
      </ConfirmDialog>
    </AdminPanel>
  );
}
