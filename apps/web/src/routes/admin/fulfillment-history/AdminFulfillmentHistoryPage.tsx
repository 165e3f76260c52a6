import HistoryIcon from '@mui/icons-material/History';
import { NotAvailableYet } from '../../../components/NotAvailableYet.tsx';

const WILL_LET_YOU = [
  'Search all orders by seller, date or tracking number',
  'Buy labels and mark orders shipped',
  "Charge a seller's stored card for an order",
] as const;

/** Placeholder until this capability ships; replace the body with the real page. */
export default function AdminFulfillmentHistoryPage() {
  return (
    <NotAvailableYet
      title="Fulfillment History"
      summary="Every order fulfilled for every seller."
      willLetYou={WILL_LET_YOU}
      meanwhile={{
        label: 'Back to the admin overview',
        to: '/admin',
        explanation: 'Meanwhile, manage users and read contact messages on the admin overview.',
      }}
      icon={<HistoryIcon />}
    />
  );
}
