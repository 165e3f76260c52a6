import { useState } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import type { Order } from '@layerline/contracts';
import { FileClaimDialog } from './FileClaimDialog.tsx';

/** On a shipped or delivered order: file a claim (the form tells why when none can be filed now). */
export function OrderClaimButton({ order }: { order: Order }) {
  const [open, setOpen] = useState(false);
  if (order.status !== 'shipped' && order.status !== 'delivered') return null;
  return (
    <Box sx={{ mb: 2 }}>
      <Button variant="outlined" color="warning" onClick={() => setOpen(true)}>
        File a claim
      </Button>
      {open ? <FileClaimDialog orderId={order.id} orderNumber={order.externalId} onClose={() => setOpen(false)} /> : null}
    </Box>
  );
}
