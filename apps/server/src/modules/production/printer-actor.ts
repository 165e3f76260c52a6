/**
 * The admin behind a change to the farm's printers or power groups, as the audit log records it.
 * Its own file because both printer-service.ts and printer-group-service.ts take it, and the printer
 * service builds the group service.
 */
export interface PrinterActor {
  readonly id: string;
  readonly requestId?: string;
}
