import Box from '@mui/material/Box';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { OrdersView } from '../../app/orders/OrdersView.tsx';

/** /admin-orders: every seller's orders; status changes with a reason, recorded with the admin. */
export default function AdminOrdersPage() {
  return (
    <Box>
      <PageHeading
        title="All Orders"
        subtitle="Orders of every seller. Move them through production; every change is recorded with its reason."
      />
      <OrdersView scope="admin" />
    </Box>
  );
}
