import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiFetch } from '../../../api/client.ts';
import { queryKeys } from '../../../api/query-keys.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { AdminPanel } from './AdminPanel.tsx';
import { formatDateTime } from './format-date.ts';

/** GET /api/admin/jobs (apps/server/src/modules/jobs-admin/jobs-admin-routes.ts). */
interface QueueCounts {
  name: string;
  queued: number;
  deferred: number;
  active: number;
  failed: number;
  total: number;
  countedAt: string | null;
  retry: { retryLimit: number; retryDelaySeconds: number; backoff: boolean; expireInSeconds: number; policy: string } | null;
}

interface DeadLetter {
  id: string;
  queue: string | null;
  data: unknown;
  failedAt: string;
  attempts: number | null;
  error: string | null;
  retryProblem: string | null;
}

interface JobsOverview {
  queues: QueueCounts[];
  deadLetterTotal: number;
  deadLetters: DeadLetter[];
}

const JOBS_KEY = ['admin', 'jobs'] as const;
const DEAD_LETTER_LIMIT = 100;

function useJobsOverview() {
  return useQuery({
    queryKey: JOBS_KEY,
    queryFn: () => apiFetch<JobsOverview>(`/api/admin/jobs?limit=${DEAD_LETTER_LIMIT}`),
    refetchInterval: 30_000,
  });
}

function useRetryDeadLetter() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiFetch<{ id: string; queue: string }>(`/api/admin/jobs/dead-letters/${encodeURIComponent(id)}/retry`, { method: 'POST' }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: JOBS_KEY });
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminAuditAll });
    },
  });
}

function describePolicy(queue: QueueCounts): string {
  if (!queue.retry) return 'Jobs that ran out of attempts';
  const { retryLimit, retryDelaySeconds, backoff, expireInSeconds, policy } = queue.retry;
  const retries = retryLimit === 0 ? 'no retries' : `${retryLimit} retries from ${retryDelaySeconds} s${backoff ? ', doubling' : ''}`;
  return `${retries}; ${expireInSeconds} s per attempt${policy !== 'standard' ? `; ${policy}` : ''}`;
}

/** A short, single-line view of a (redacted) payload. */
function describeData(data: unknown): string {
  const text = JSON.stringify(data) ?? '';
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

/** Queue counts and the dead-lettered jobs, each with a Retry button. */
export function BackgroundJobsPanel() {
  const jobs = useJobsOverview();
  const retry = useRetryDeadLetter();
  const { showToast } = useToast();
  const countedAt = jobs.data?.queues.map((q) => q.countedAt).find(Boolean);

  const onRetry = (job: DeadLetter) =>
    retry.mutate(job.id, {
      onSuccess: (result) => showToast(`Job sent again to ${result.queue}`),
      onError: (error) => showToast(error.message, 'error'),
    });

  return (
    <AdminPanel
      title="Background jobs"
      subtitle={countedAt ? `Queue counts as of ${formatDateTime(countedAt)}` : 'Queues, retries and dead letters'}
      testId="admin-jobs"
    >
      {jobs.isError ? <Alert severity="error">{jobs.error.message}</Alert> : null}
      {jobs.isPending ? <Skeleton variant="rounded" height={160} /> : null}
      {jobs.data ? (
        <>
          <Box sx={{ overflowX: 'auto' }}>
            <Table size="small" aria-label="Job queues">
              <TableHead>
                <TableRow>
                  <TableCell>Queue</TableCell>
                  <TableCell align="right">Queued</TableCell>
                  <TableCell align="right">Waiting to retry or start</TableCell>
                  <TableCell align="right">Running</TableCell>
                  <TableCell align="right">Failed</TableCell>
                  <TableCell>Policy</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {jobs.data.queues.map((queue) => (
                  <TableRow key={queue.name} data-testid={`queue-${queue.name}`}>
                    <TableCell component="th" scope="row">
                      {queue.name}
                    </TableCell>
                    <TableCell align="right">{queue.queued}</TableCell>
                    <TableCell align="right">{queue.deferred}</TableCell>
                    <TableCell align="right">{queue.active}</TableCell>
                    <TableCell align="right">{queue.failed}</TableCell>
                    <TableCell>
                      <Typography variant="body2" color="text.secondary">
                        {describePolicy(queue)}
                      </Typography>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Box>

          <Typography variant="subtitle1" component="h3" sx={{ mt: 3, mb: 1 }}>
            Dead letters{' '}
            <Chip size="small" label={jobs.data.deadLetterTotal} color={jobs.data.deadLetterTotal > 0 ? 'warning' : 'default'} />
          </Typography>
          {jobs.data.deadLetters.length === 0 ? (
            <Typography color="text.secondary">No job has run out of attempts.</Typography>
          ) : (
            <Box sx={{ overflowX: 'auto' }}>
              <Table size="small" aria-label="Dead-lettered jobs">
                <TableHead>
                  <TableRow>
                    <TableCell>Failed</TableCell>
                    <TableCell>Queue</TableCell>
                    <TableCell>Error</TableCell>
                    <TableCell>Payload</TableCell>
                    <TableCell />
                  </TableRow>
                </TableHead>
                <TableBody>
                  {jobs.data.deadLetters.map((job) => (
                    <TableRow key={job.id} data-testid="dead-letter">
                      <TableCell sx={{ whiteSpace: 'nowrap' }}>
                        {formatDateTime(job.failedAt)}
                        {job.attempts !== null ? (
                          <Typography variant="caption" color="text.secondary" component="div">
                            after {job.attempts} attempt{job.attempts === 1 ? '' : 's'}
                          </Typography>
                        ) : null}
                      </TableCell>
                      <TableCell>{job.queue ?? 'unknown'}</TableCell>
                      <TableCell sx={{ maxWidth: 360, overflowWrap: 'anywhere' }}>
                        {job.error ?? '—'}
                        {job.retryProblem ? (
                          <Typography variant="caption" color="warning.main" component="div">
                            Last retry: {job.retryProblem}
                          </Typography>
                        ) : null}
                      </TableCell>
                      <TableCell sx={{ maxWidth: 320, fontFamily: 'monospace', fontSize: 12, overflowWrap: 'anywhere' }}>
                        {describeData(job.data)}
                      </TableCell>
                      <TableCell align="right">
                        <Button
                          size="small"
                          variant="outlined"
                          disabled={job.queue === null || (retry.isPending && retry.variables === job.id)}
                          onClick={() => onRetry(job)}
                        >
                          Retry
                        </Button>
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </Box>
          )}
          {jobs.data.deadLetterTotal > jobs.data.deadLetters.length ? (
            <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
              Showing the newest {jobs.data.deadLetters.length} of {jobs.data.deadLetterTotal}.
            </Typography>
          ) : null}
        </>
      ) : null}
    </AdminPanel>
  );
}
