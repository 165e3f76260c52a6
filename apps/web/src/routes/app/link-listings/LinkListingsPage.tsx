import LinkIcon from '@mui/icons-material/Link';
import { NotAvailableYet } from '../../../components/NotAvailableYet.tsx';

const WILL_LET_YOU = [
  'See every listing of your connected shop',
  'Link each listing to a product by SKU',
  'Spot listings that cannot be fulfilled yet',
] as const;

/** Placeholder until this capability ships; replace the body with the real page. */
export default function LinkListingsPage() {
  return (
    <NotAvailableYet
      title="Link Listings"
      summary="Match your marketplace listings to your products."
      willLetYou={WILL_LET_YOU}
      meanwhile={{
        label: 'Go to your dashboard',
        to: '/dashboard',
        explanation: 'Meanwhile, your dashboard shows what to set up first.',
      }}
      icon={<LinkIcon />}
    />
  );
}
