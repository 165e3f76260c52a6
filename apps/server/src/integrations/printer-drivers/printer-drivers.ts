import type { PrinterConnection } from '@layerline/contracts';
import { createBambulabFleet, type BambulabFleet } from '../bambulab/bambulab-driver.ts';
import type { CertificatePins } from '../bambulab/bambulab-tls.ts';
import type { PrinterDriver, PrinterDriverFactory } from '../../modules/production/printer-driver.ts';
import type { PrinterHostPolicy } from '../http-client/printer-host-policy.ts';
import type { PrinterTransportOptions } from '../http-client/printer-transport-options.ts';
import { createMoonrakerDriver } from '../moonraker/moonraker-driver.ts';
import { createOctoprintDriver } from '../octoprint/octoprint-driver.ts';
import { createPrusalinkDriver } from '../prusalink/prusalink-driver.ts';
import type { SimulatedPrinterFarm } from '../simulated-printer/simulated-printer.ts';

/**
 * The one place that picks a printer adapter by its connection's kind. app-context builds one
 * factory per process (with that process's simulated farm) and hands it to the production module
 * as a PrinterDriverFactory; modules never import an adapter.
 */
export interface PrinterDriverDeps {
  readonly policy: PrinterHostPolicy;
  readonly simulatedFarm: SimulatedPrinterFarm;
  /** Timeouts, and the fetch/lookup/clock seams for tests. */
  readonly transport?: Omit<PrinterTransportOptions, 'policy'>;
  /** Where Bambu Lab printers' certificates are pinned (the printers table); in memory when absent. */
  readonly certificatePins?: (printerId: string) => CertificatePins;
  /** `host:port` of printers this process runs itself (the demo's simulated Bambu Lab printer). */
  readonly inProcessPrinters?: ReadonlySet<string>;
}

/** Pins kept for the process only (unit tests that have no printers table). */
const pinsInMemory = (): ((printerId: string) => CertificatePins) => {
  const pins = new Map<string, string>();
  return (printerId) => ({
    pinned: async () => pins.get(printerId) ?? null,
    pin: async (sha256) => {
      if (!pins.has(printerId)) pins.set(printerId, sha256);
    },
  });
};

/** A driver factory that also closes what it holds open (Bambu Lab printers' MQTT connections). */
export type ClosablePrinterDriverFactory = PrinterDriverFactory & { close(): Promise<void> };

export const createPrinterDriverFactory = (deps: PrinterDriverDeps): ClosablePrinterDriverFactory => {
  const transport: PrinterTransportOptions = { ...deps.transport, policy: deps.policy };
  const bambulab: BambulabFleet = createBambulabFleet({
    policy: deps.policy,
    pins: deps.certificatePins ?? pinsInMemory(),
    ...(deps.transport?.timeoutMs !== undefined ? { timeoutMs: deps.transport.timeoutMs } : {}),
    ...(deps.transport?.uploadTimeoutMs !== undefined ? { uploadTimeoutMs: deps.transport.uploadTimeoutMs } : {}),
    ...(deps.transport?.lookup ? { lookup: deps.transport.lookup } : {}),
    ...(deps.inProcessPrinters ? { inProcess: deps.inProcessPrinters } : {}),
  });
  const factory = (printerId: string, connection: PrinterConnection): PrinterDriver => {
    switch (connection.kind) {
      case 'octoprint':
        return createOctoprintDriver(connection, transport);
      case 'moonraker':
        return createMoonrakerDriver(connection, transport);
      case 'prusalink':
        return createPrusalinkDriver(connection, transport);
      case 'simulated':
        return deps.simulatedFarm.driver(printerId, connection);
      case 'bambulab':
        return bambulab.driver(printerId, connection);
      default: {
        const unknown: never = connection;
        throw new Error(`No printer adapter for ${JSON.stringify((unknown as { kind?: unknown }).kind)}`);
      }
    }
  };
  return Object.assign(factory, { close: () => bambulab.close() });
};
