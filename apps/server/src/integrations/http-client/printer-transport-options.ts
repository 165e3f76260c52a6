import type { HostLookup, PrinterHostPolicy } from './printer-host-policy.ts';

/** What every network printer adapter takes besides its connection. */
export interface PrinterTransportOptions {
  readonly policy: PrinterHostPolicy;
  /** Per read or command; default 10 s. */
  readonly timeoutMs?: number;
  /** Per upload; default 5 min. */
  readonly uploadTimeoutMs?: number;
  readonly fetch?: typeof fetch;
  readonly lookup?: HostLookup;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}
