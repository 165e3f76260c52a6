import Chip from '@mui/material/Chip';
import { EMAIL_STATUS_LABELS, EMAIL_TYPE_INFO, type EmailStatus, type EmailTemplateType } from '@layerline/contracts';

const STATUS_COLOURS: Record<EmailStatus, 'default' | 'info' | 'success' | 'error'> = {
  queued: 'info',
  sent: 'success',
  failed: 'error',
  outbox: 'default',
};

/** The kind's name as sellers see it in their settings (a kind this build does not know: its key). */
export const emailKindLabel = (type: string) => EMAIL_TYPE_INFO[type as EmailTemplateType]?.label ?? type;

export function EmailStatusChip({ status }: { status: EmailStatus }) {
  return <Chip size="small" color={STATUS_COLOURS[status]} label={EMAIL_STATUS_LABELS[status]} />;
}
