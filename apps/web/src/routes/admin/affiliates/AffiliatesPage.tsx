import HandshakeOutlinedIcon from '@mui/icons-material/HandshakeOutlined';
import { NotAvailableYet } from '../../../components/NotAvailableYet.tsx';

const WILL_LET_YOU = [
  'See every affiliate and their sign-ups',
  'Review and approve affiliate earnings',
  "Change a seller's referral code",
] as const;

/** Placeholder until this capability ships; replace the body with the real page. */
export default function AffiliatesPage() {
  return (
    <NotAvailableYet
      title="Affiliates"
      summary="Referral codes and the earnings they produced."
      willLetYou={WILL_LET_YOU}
      meanwhile={{
        label: 'Back to the admin overview',
        to: '/admin',
        explanation: 'Meanwhile, manage users and read contact messages on the admin overview.',
      }}
      icon={<HandshakeOutlinedIcon />}
    />
  );
}
