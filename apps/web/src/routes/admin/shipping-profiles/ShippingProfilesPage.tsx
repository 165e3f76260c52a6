import LocalShippingOutlinedIcon from '@mui/icons-material/LocalShippingOutlined';
import { NotAvailableYet } from '../../../components/NotAvailableYet.tsx';

const WILL_LET_YOU = [
  'Define parcel profiles per product size',
  'Choose default carriers and services',
  'Compare ShipStation and Shippo rates',
] as const;

/** Placeholder until this capability ships; replace the body with the real page. */
export default function ShippingProfilesPage() {
  return (
    <NotAvailableYet
      title="Shipping Profiles"
      summary="Parcel sizes, carriers and services used to ship orders."
      willLetYou={WILL_LET_YOU}
      meanwhile={{
        label: 'Back to the admin overview',
        to: '/admin',
        explanation: 'Meanwhile, manage users and read contact messages on the admin overview.',
      }}
      icon={<LocalShippingOutlinedIcon />}
    />
  );
}
