import { useState } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import AddIcon from '@mui/icons-material/Add';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { FulfillmentHistoryView } from '../../app/fulfillment-history/FulfillmentHistoryView.tsx';
import { RecordShipmentDialog } from './RecordShipmentDialog.tsx';
import { SellerPicker, type PickedSeller } from './SellerPicker.tsx';

/** /admin-fulfillment-history: every seller's shipments, one seller's with the filter; shipments recorded by hand. */
export default function AdminFulfillmentHistoryPage() {
  const { showToast } = useToast();
  const [seller, setSeller] = useState<PickedSeller | null>(null);
  const [recording, setRecording] = useState(false);

  return (
    <Box>
      <PageHeading
        title="Fulfillment History"
        subtitle="Every shipment of every seller, with its costs and tracking."
        actions={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setRecording(true)}>
            Record a shipment
          </Button>
        }
      />
      <FulfillmentHistoryView
        scope="admin"
        sellerId={seller?.id ?? ''}
        sellerFilter={<SellerPicker value={seller} onChange={setSeller} label="Seller (all when empty)" />}
      />
      {recording ? (
        <RecordShipmentDialog
          onClose={() => setRecording(false)}
          onSaved={(record) => {
            setRecording(false);
            showToast(`Shipment ${record.orderNumber} recorded for ${record.sellerName}`);
          }}
        />
      ) : null}
    </Box>
  );
}
