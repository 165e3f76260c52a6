import { Link as RouterLink } from 'react-router';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Typography from '@mui/material/Typography';
import type { DashboardOverview } from '@layerline/contracts';

/** The single most useful thing to do next: the first open checklist item that can be done today. */
export function NextStepCard({ overview }: { overview: DashboardOverview }) {
  const next = overview.checklist.find((item) => !item.done && item.available);
  return (
    <Card
      sx={{
        borderColor: 'primary.main',
        bgcolor: (theme) =>
          theme.palette.mode === 'dark' ? 'rgba(249, 115, 22, 0.06)' : 'rgba(249, 115, 22, 0.04)',
      }}
    >
      <CardContent sx={{ p: 3 }}>
        <Typography variant="overline" color="primary" sx={{ fontWeight: 700 }}>
          Next step
        </Typography>
        {next ? (
          <>
            <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
              {next.label}
            </Typography>
            <Button variant="contained" component={RouterLink} to={next.href}>
              Do it now
            </Button>
          </>
        ) : (
          <>
            <Typography variant="h6" component="h2">
              You are all set for now
            </Typography>
            <Typography color="text.secondary">
              Everything available today is done. We will add the next steps here as new features ship.
            </Typography>
          </>
        )}
      </CardContent>
    </Card>
  );
}
