import Box from '@mui/material/Box';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { FulfillmentHistoryView } from './FulfillmentHistoryView.tsx';

/** /fulfillment-history: every order we printed and shipped for the seller, with its costs and tracking. */
export default function FulfillmentHistoryPage() {
  return (
    <Box>
      <PageHeading
        title="Fulfillment History"
        subtitle="Every order we printed and shipped for you: what it cost, how it went and where it is."
      />
      <FulfillmentHistoryView scope="mine" />
    </Box>
  );
}
