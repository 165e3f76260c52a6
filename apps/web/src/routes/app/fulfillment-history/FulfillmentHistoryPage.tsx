import HistoryIcon from '@mui/icons-material/History';
import { NotAvailableYet } from '../../../components/NotAvailableYet.tsx';

const WILL_LET_YOU = [
  'Search and filter orders by date',
  'See what each order cost and when it shipped',
  'Follow every parcel with its tracking number',
] as const;

/** Placeholder until this capability ships; replace the body with the real page. */
export default function FulfillmentHistoryPage() {
  return (
    <NotAvailableYet
      title="Fulfillment History"
      summary="Every order we printed and shipped for you."
      willLetYou={WILL_LET_YOU}
      meanwhile={{
        label: 'Go to your dashboard',
        to: '/dashboard',
        explanation: 'Meanwhile, your dashboard shows what to set up first.',
      }}
      icon={<HistoryIcon />}
    />
  );
}
