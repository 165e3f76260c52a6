import HandshakeOutlinedIcon from '@mui/icons-material/HandshakeOutlined';
import { NotAvailableYet } from '../../../components/NotAvailableYet.tsx';

const WILL_LET_YOU = [
  'Choose your own referral code',
  'Share links that credit sign-ups to you',
  'Follow the earnings of your referrals',
] as const;

/** Placeholder until this capability ships; replace the body with the real page. */
export default function AffiliateLinksPage() {
  return (
    <NotAvailableYet
      title="Affiliate Links"
      summary="Earn by inviting other creators to Layerline."
      willLetYou={WILL_LET_YOU}
      meanwhile={{
        label: 'Go to your dashboard',
        to: '/dashboard',
        explanation: 'Meanwhile, your dashboard shows what to set up first.',
      }}
      icon={<HandshakeOutlinedIcon />}
    />
  );
}
