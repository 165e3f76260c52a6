import { useEffect } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import CategoryOutlinedIcon from '@mui/icons-material/CategoryOutlined';
import ExploreOutlinedIcon from '@mui/icons-material/ExploreOutlined';
import LocalShippingOutlinedIcon from '@mui/icons-material/LocalShippingOutlined';
import StorefrontOutlinedIcon from '@mui/icons-material/StorefrontOutlined';
import ViewInArOutlinedIcon from '@mui/icons-material/ViewInArOutlined';
import { useDashboardOverview } from '../../../api/dashboard.ts';
import { useAuth } from '../../../app/auth/AuthProvider.tsx';
import { takeTourPending } from '../../../app/tour/first-visit.ts';
import { useTour } from '../../../app/tour/tour-context.ts';
import { OnboardingChecklist } from '../../../components/OnboardingChecklist.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { StatCard } from '../../../components/StatCard.tsx';
import { NextStepCard } from './NextStepCard.tsx';
import { RecentOrdersCard } from '../orders/RecentOrdersCard.tsx';

export default function DashboardPage() {
  const { user, isBetaTester } = useAuth();
  const tour = useTour();
  const overview = useDashboardOverview();

  // The first dashboard visit after sign-up opens the tour by itself.
  const { start } = tour;
  useEffect(() => {
    if (takeTourPending()) start();
  }, [start]);

  const firstName = user?.name.split(' ')[0] ?? '';
  return (
    <Box>
      <PageHeading
        title={firstName ? `Hello, ${firstName}` : 'Dashboard'}
        subtitle={
          user?.businessName
            ? `${user.businessName} at a glance`
            : 'Your print-on-demand business at a glance'
        }
        actions={
          <Button
            variant="outlined"
            startIcon={<ExploreOutlinedIcon />}
            onClick={tour.start}
            data-testid="start-tour"
          >
            Take the tour
          </Button>
        }
      />
      {overview.isError ? (
        <Alert
          severity="error"
          sx={{ mb: 3 }}
          action={
            <Button color="inherit" onClick={() => void overview.refetch()}>
              Retry
            </Button>
          }
        >
          {overview.error.message}
        </Alert>
      ) : null}
      <Box
        sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr 1fr', lg: 'repeat(4, 1fr)' }, gap: 2, mb: 3 }}
      >
        {[
          {
            label: 'Designs',
            value: overview.data?.designs,
            icon: <ViewInArOutlinedIcon />,
            to: '/my-designs',
          },
          {
            label: 'Products',
            value: overview.data?.products,
            icon: <CategoryOutlinedIcon />,
            to: '/products',
          },
          {
            label: 'Open orders',
            value: overview.data?.openOrders,
            icon: <LocalShippingOutlinedIcon />,
            to: '/orders',
          },
          {
            label: 'Connected shops',
            value: overview.data?.connectedShops,
            icon: <StorefrontOutlinedIcon />,
            to: isBetaTester ? '/connect-store' : '/dashboard',
          },
        ].map((stat) => (
          <StatCard
            key={stat.label}
            label={stat.label}
            icon={stat.icon}
            to={stat.to}
            value={stat.value ?? <Skeleton width={32} />}
          />
        ))}
      </Box>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', lg: '3fr 2fr' }, gap: 3 }}>
        <Card>
          <CardContent sx={{ p: 3 }}>
            <Typography variant="h6" component="h2" gutterBottom>
              Get set up
            </Typography>
            {overview.data ? (
              <OnboardingChecklist items={overview.data.checklist} />
            ) : (
              <Skeleton variant="rounded" height={180} />
            )}
          </CardContent>
        </Card>
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 3 }}>
          {overview.data ? (
            <NextStepCard overview={overview.data} />
          ) : (
            <Skeleton variant="rounded" height={160} />
          )}
          <RecentOrdersCard />
          <Card>
            <CardContent sx={{ p: 3 }}>
              <Typography variant="h6" component="h2" gutterBottom>
                New here?
              </Typography>
              <Typography color="text.secondary" sx={{ mb: 2 }}>
                The tour walks you through the seven places you will use most, in about a minute.
              </Typography>
              <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
                <Button variant="text" onClick={tour.start}>
                  Take the tour
                </Button>
                <Button variant="text" component={RouterLink} to="/how-it-works">
                  How it works
                </Button>
              </Box>
            </CardContent>
          </Card>
        </Box>
      </Box>
    </Box>
  );
}
