import ShoppingCartCheckoutIcon from '@mui/icons-material/ShoppingCartCheckout';
import { NotAvailableYet } from '../../../components/NotAvailableYet.tsx';

const WILL_LET_YOU = [
  'Pick products and quantities',
  'Enter the shipping address of your customer',
  'Pay with your stored card and track the order',
] as const;

/** Placeholder until this capability ships; replace the body with the real page. */
export default function SubmitOrderPage() {
  return (
    <NotAvailableYet
      title="Submit Order"
      summary="Place a manual order for your own products."
      willLetYou={WILL_LET_YOU}
      meanwhile={{
        label: 'Check your ship-from address',
        to: '/account-settings',
        explanation: 'Meanwhile, make sure your return address is set: every order needs one.',
      }}
      icon={<ShoppingCartCheckoutIcon />}
    />
  );
}
