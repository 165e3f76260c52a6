import StorefrontOutlinedIcon from '@mui/icons-material/StorefrontOutlined';
import { NotAvailableYet } from '../../../components/NotAvailableYet.tsx';

const WILL_LET_YOU = [
  'Connect Etsy, Shopify, WooCommerce, eBay, Amazon, Walmart or TikTok Shop',
  'Use the custom API option for any other storefront',
  'Connect ShipStation or Shippo for labels',
] as const;

/** Placeholder until this capability ships; replace the body with the real page. */
export default function ConnectStorePage() {
  return (
    <NotAvailableYet
      title="Connect Store"
      summary="Link the shop your customers buy from."
      willLetYou={WILL_LET_YOU}
      meanwhile={{
        label: 'Complete your account',
        to: '/account-settings',
        explanation: 'Meanwhile, complete your business details and return address.',
      }}
      icon={<StorefrontOutlinedIcon />}
    />
  );
}
