import Chip from '@mui/material/Chip';
import { CLAIM_STATUS_LABELS, type ClaimStatus } from '@layerline/contracts';

const STATUS_COLOUR: Record<ClaimStatus, 'warning' | 'info' | 'success' | 'default'> = {
  open: 'warning',
  reprint: 'info',
  refunded: 'success',
  declined: 'default',
};

export function ClaimStatusChip({ status }: { status: ClaimStatus }) {
  return <Chip size="small" color={STATUS_COLOUR[status]} label={CLAIM_STATUS_LABELS[status]} />;
}
