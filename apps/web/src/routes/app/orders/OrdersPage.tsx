import Box from '@mui/material/Box';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { OrdersView } from './OrdersView.tsx';

/** /orders: the seller's orders from every channel, each with its timeline. */
export default function OrdersPage() {
  return (
    <Box>
      <PageHeading
        title="Orders"
        subtitle="Every order from your shops, the order API and manual orders, with what happened to it."
      />
      <OrdersView scope="mine" />
    </Box>
  );
}
