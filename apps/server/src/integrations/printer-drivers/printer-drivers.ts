import type { PrinterConnection } from '@layerline/contracts';
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
}

export const createPrinterDriverFactory = (deps: PrinterDriverDeps): PrinterDriverFactory => {
  const transport: PrinterTransportOptions = { ...deps.transport, policy: deps.policy };
  return (printerId: string, connection: PrinterConnection): PrinterDriver => {
    switch (connection.kind) {
      case 'octoprint':
        return createOctoprintDriver(connection, transport);
      case 'moonraker':
        return createMoonrakerDriver(connection, transport);
      case 'prusalink':
        return createPrusalinkDriver(connection, transport);
      case 'simulated':
        return deps.simulatedFarm.driver(printerId, connection);
      default: {
        const unknown: never = connection;
        throw new Error(`No printer adapter for ${JSON.stringify((unknown as { kind?: unknown }).kind)}`);
      }
    }
  };
};
