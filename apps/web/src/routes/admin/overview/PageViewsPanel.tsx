import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import { usePageViewStats } from '../../../api/admin.ts';
import { BarChart } from '../../../components/BarChart.tsx';
import { AdminPanel } from './AdminPanel.tsx';

const DAYS = 30;
const TOP_PATHS_SHOWN = 8;
const DAY_LABEL = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

function formatDay(day: string): string {
  const date = new Date(`${day.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : DAY_LABEL.format(date);
}

export function PageViewsPanel() {
  const stats = usePageViewStats(DAYS);
  const topPaths = stats.data?.topPaths.slice(0, TOP_PATHS_SHOWN) ?? [];
  const topMax = Math.max(1, ...topPaths.map((entry) => entry.views));
  return (
    <AdminPanel
      title="Page views"
      subtitle={
        stats.data
          ? `${stats.data.total.toLocaleString()} views in the last ${DAYS} days`
          : `The last ${DAYS} days`
      }
      testId="admin-page-views"
    >
      {stats.isError ? <Alert severity="error">{stats.error.message}</Alert> : null}
      {stats.isPending ? <Skeleton variant="rounded" height={220} /> : null}
      {stats.data ? (
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', lg: '2fr 1fr' }, gap: 4 }}>
          <BarChart
            ariaLabel={`Page views per day over the last ${DAYS} days`}
            data={stats.data.days.map((entry) => ({ label: entry.day, value: entry.views }))}
            formatLabel={formatDay}
          />
          <Box>
            <Typography variant="subtitle2" sx={{ mb: 1 }}>
              Top pages
            </Typography>
            {topPaths.length === 0 ? <Typography color="text.secondary">No views yet.</Typography> : null}
            {topPaths.map((entry) => (
              <Box key={entry.path} sx={{ mb: 1.25 }} data-testid="top-path">
                <Box sx={{ display: 'flex', justifyContent: 'space-between', gap: 1 }}>
                  <Typography variant="body2" noWrap sx={{ fontFamily: 'monospace' }}>
                    {entry.path}
                  </Typography>
                  <Typography variant="body2" color="text.secondary">
                    {entry.views}
                  </Typography>
                </Box>
                <LinearProgress
                  variant="determinate"
                  value={(entry.views / topMax) * 100}
                  sx={{ height: 6, borderRadius: 3 }}
                  aria-hidden
                />
              </Box>
            ))}
          </Box>
        </Box>
      ) : null}
    </AdminPanel>
  );
}
