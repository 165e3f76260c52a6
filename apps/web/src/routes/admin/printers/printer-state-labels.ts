import type { PrinterState } from '@layerline/contracts';

/** A printer's state in words, for the printers page and the production board alike. */
export const PRINTER_STATE_LABEL: Readonly<Record<PrinterState, string>> = {
  idle: 'Idle',
  busy: 'Busy',
  printing: 'Printing',
  paused: 'Paused',
  attention: 'Needs attention',
  finished: 'Finished',
  cancelled: 'Cancelled',
  failed: 'Print failed',
  error: 'Error',
  offline: 'Offline',
  unknown: 'Unknown state',
};

/** The chip colour of each state. */
export const PRINTER_STATE_COLOUR = {
  idle: 'success',
  busy: 'info',
  printing: 'primary',
  paused: 'warning',
  attention: 'warning',
  finished: 'info',
  cancelled: 'info',
  failed: 'warning',
  error: 'error',
  offline: 'default',
  unknown: 'warning',
} as const satisfies Record<PrinterState, string>;
