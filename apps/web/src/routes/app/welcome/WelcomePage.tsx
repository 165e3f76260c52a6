import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import { useDashboardOverview } from '../../../api/dashboard.ts';
import { useAuth } from '../../../app/auth/AuthProvider.tsx';
import { OnboardingChecklist } from '../../../components/OnboardingChecklist.tsx';

/** Where a new account lands: a greeting and the onboarding checklist. */
export default function WelcomePage() {
  const { user } = useAuth();
  const overview = useDashboardOverview();
  return (
    <Box sx={{ maxWidth: 820 }}>
      <Typography variant="overline" color="primary" sx={{ fontWeight: 700, letterSpacing: '0.12em' }}>
        Welcome aboard
      </Typography>
      <Typography variant="h4" component="h1">
        Welcome to Layerline{user ? `, ${user.name.split(' ')[0]}` : ''}!
      </Typography>
      <Typography color="text.secondary" sx={{ mt: 1, mb: 3, fontSize: '1.05rem' }}>
        Here is how to get from an empty account to your first shipped order. Tick these off in any order.
      </Typography>
      {overview.isError ? (
        <Alert severity="error" sx={{ mb: 3 }}>
          {overview.error.message}
        </Alert>
      ) : null}
      <Card>
        <CardContent sx={{ p: { xs: 2, sm: 3 } }}>
          <Typography variant="h6" component="h2" gutterBottom>
            Your setup checklist
          </Typography>
          {overview.data ? (
            <OnboardingChecklist items={overview.data.checklist} />
          ) : (
            <Skeleton variant="rounded" height={200} />
          )}
        </CardContent>
      </Card>
      <Box sx={{ display: 'flex', gap: 1.5, mt: 3, flexWrap: 'wrap' }}>
        <Button variant="contained" component={RouterLink} to="/dashboard">
          Go to my dashboard
        </Button>
        <Button variant="outlined" component={RouterLink} to="/account-settings">
          Complete my account
        </Button>
      </Box>
    </Box>
  );
}
