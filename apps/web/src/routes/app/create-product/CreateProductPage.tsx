import AddBoxOutlinedIcon from '@mui/icons-material/AddBoxOutlined';
import { NotAvailableYet } from '../../../components/NotAvailableYet.tsx';

const WILL_LET_YOU = [
  'Upload STL, 3MF or OBJ files and see an instant print quote',
  'Choose filament, colours and finishing options per variant',
  'Give each variant the SKU your shop uses',
] as const;

/** Placeholder until this capability ships; replace the body with the real page. */
export default function CreateProductPage() {
  return (
    <NotAvailableYet
      title="Create Product"
      summary="Turn a 3D design into a product you can sell."
      willLetYou={WILL_LET_YOU}
      meanwhile={{
        label: 'Complete your account',
        to: '/account-settings',
        explanation:
          'Meanwhile, set the address parcels ship from so your first order goes out without delay.',
      }}
      icon={<AddBoxOutlinedIcon />}
    />
  );
}
