import CategoryOutlinedIcon from '@mui/icons-material/CategoryOutlined';
import { NotAvailableYet } from '../../../components/NotAvailableYet.tsx';

const WILL_LET_YOU = [
  'Group designs into products with variants',
  'Assign the SKUs used by your marketplace listings',
  "See each variant's fulfilment cost",
] as const;

/** Placeholder until this capability ships; replace the body with the real page. */
export default function ProductsPage() {
  return (
    <NotAvailableYet
      title="Products"
      summary="Your products and their variants, ready to sell."
      willLetYou={WILL_LET_YOU}
      meanwhile={{
        label: 'Go to your dashboard',
        to: '/dashboard',
        explanation: 'Meanwhile, your dashboard shows what to set up first.',
      }}
      icon={<CategoryOutlinedIcon />}
    />
  );
}
