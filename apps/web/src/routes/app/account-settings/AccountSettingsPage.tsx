import Box from '@mui/material/Box';
import { useAuth } from '../../../app/auth/AuthProvider.tsx';
import { LoadingSpinner } from '../../../components/LoadingSpinner.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { BillingSection } from './BillingSection.tsx';
import { BrandingSection } from './BrandingSection.tsx';
import { ChangeWindowSection } from './ChangeWindowSection.tsx';
import { EmailSection } from './EmailSection.tsx';
import { EmailNotificationsSection } from './EmailNotificationsSection.tsx';
import { OrderApiCredentialsSection } from './OrderApiCredentialsSection.tsx';
import { PasswordSection } from './PasswordSection.tsx';
import { ProfileSection } from './ProfileSection.tsx';
import { ReturnAddressSection } from './ReturnAddressSection.tsx';
import { ShippingSection } from './ShippingSection.tsx';

export default function AccountSettingsPage() {
  const { user, isBetaTester, isAdmin } = useAuth();
  if (!user) return <LoadingSpinner label="Loading your account" />;
  return (
    <Box sx={{ maxWidth: 880 }}>
      <PageHeading
        title="Account Settings"
        subtitle="Your details, how you log in, the card you pay with, and where parcels ship from."
      />
      <Box sx={{ display: 'flex', flexDirection: 'column', gap: 3 }}>
        <ProfileSection me={user} />
        <ReturnAddressSection me={user} />
        <BrandingSection />
        <BillingSection />
        <ShippingSection />
        <ChangeWindowSection />
        <EmailSection me={user} />
        <EmailNotificationsSection />
        <PasswordSection />
        {/* Beta testers manage these on /connect-store; anyone else may still hold some to revoke. */}
        {isBetaTester || isAdmin ? null : <OrderApiCredentialsSection />}
      </Box>
    </Box>
  );
}
