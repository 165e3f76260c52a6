import Box from '@mui/material/Box';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { AuditLogPanel } from './AuditLogPanel.tsx';
import { BackgroundJobsPanel } from './BackgroundJobsPanel.tsx';
import { BusinessDetailsPanel } from './BusinessDetailsPanel.tsx';
import { ClaimsStatsPanel } from './ClaimsStatsPanel.tsx';
import { ContactMessagesPanel } from './ContactMessagesPanel.tsx';
import { DiscordPanel } from './DiscordPanel.tsx';
import { FailedDeliveriesPanel } from './FailedDeliveriesPanel.tsx';
import { LandingTestimonialPanel } from './LandingTestimonialPanel.tsx';
import { PageViewsPanel } from './PageViewsPanel.tsx';
import { UsersPanel } from './UsersPanel.tsx';

/** The admin overview: traffic, accounts and their flags, what changed, what people wrote, the jobs, marketplace deliveries that failed, and the landing testimonial. */
export default function AdminPage() {
  return (
    <Box>
      <PageHeading title="Admin" subtitle="Accounts, traffic and messages of this Layerline installation." />
      <Box sx={{ display: 'flex', flexDirection: 'column', gap: 3 }}>
        <PageViewsPanel />
        <UsersPanel />
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', lg: '1fr 1fr' }, gap: 3 }}>
          <AuditLogPanel />
          <ContactMessagesPanel />
        </Box>
        <ClaimsStatsPanel />
        <BackgroundJobsPanel />
        <FailedDeliveriesPanel />
        <DiscordPanel />
        <LandingTestimonialPanel />
        <BusinessDetailsPanel />
      </Box>
    </Box>
  );
}
