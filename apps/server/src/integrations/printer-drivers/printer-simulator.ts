import type { PrinterConnectionInput } from '@layerline/contracts';
import type { Fault, FakeRequest } from '../http-client/fake-printer-server.ts';
import type { EjectTailRun } from './eject-tail-run.ts';

/**
 * A printer server that answers as the real one does (issue 20), one per vendor and firmware:
 * OctoPrint, Moonraker/Klipper, PrusaLink on Buddy firmware, Prusa-Link on the MK3. Every answer in
 * every state is taken from shared/contracts/printers/ (which cites the vendor's source), and the
 * code that imitates it cites the same lines. Tests and the scenario table
 * (modules/production/printer-scenarios.api.test.ts) drive the printer's own life through the
 * methods below, the way a person at the printer or the machine itself would; the farm only ever
 * sees it through its HTTP API.
 */
export interface PrinterSimulator {
  /** Vendor and firmware as people say it ("OctoPrint 1.11.8", "PrusaLink on Buddy 6.3"). */
  readonly label: string;
  readonly origin: string;
  /** What an admin enters on the printers page for this printer, with credentials it accepts. */
  connection(): PrinterConnectionInput;
  /** The same with credentials it refuses. */
  wrongCredentials(): PrinterConnectionInput;
  /** Every request it received, in order. */
  readonly requests: FakeRequest[];
  /** Faults for the next requests, one each ('html', 'wrong-json', 'hang', or a status). */
  readonly faults: Fault[];
  /** The print files it stores, by the name the farm gave them. */
  readonly files: ReadonlyMap<string, Buffer>;
  /** How many prints it has started since it was made (a double print shows here). */
  readonly printsStarted: number;
  /**
   * The eject tails (continuous printing) its firmware ran at the ends of prints, as it read them
   * (eject-tail-run.ts): after one, the bed reads the temperature the tail waited for, or still hot
   * when the firmware did not know the wait.
   */
  readonly ejectsRun: readonly EjectTailRun[];
  /** Its state in its own words, for test messages. */
  describe(): string;

  /** The running print reaches this fraction (0..1). */
  advance(fraction: number): void;
  /** The running print completes, through the vendor's finishing states. */
  finish(): void;
  /** An error stops the running print, in the printer's own words. */
  fail(message: string): void;
  /** A person stops the running print on the printer's screen. */
  cancelOnScreen(): void;
  /** The filament runs out mid-print: the printer stops and waits for a person. */
  runOut(): void;
  /** A person starts a print of their own (from the screen or an SD card). */
  startLocalPrint(fileName: string): void;
  /**
   * The printer's server software restarts (OctoPrint, Moonraker, the Pi running Prusa-Link, or the
   * Buddy printer itself): what survives is what the real one keeps (a Klipper print goes on, a
   * host-streamed one is lost). It answers again when the promise resolves.
   */
  restartServer(): Promise<void>;
  /** Network cable pulled (false) or plugged back (true): connections are refused meanwhile. */
  setReachable(reachable: boolean): void;
  /** From now on its state reports carry this state, one the vendor's documents do not list. */
  sayUnknownState(state: string): void;
  stop(): Promise<void>;
}
