import type { PrinterState, PrinterStatus } from '@layerline/contracts';
import type { PrinterResult, PrintOutcome } from './printer-driver.ts';

/**
 * How the farm reads a printer (issue 20, docs/printers.md "Reading a printer"): what the printer
 * says about the job the farm believes it holds → one decision, from one table. The adapters map
 * each vendor's answers onto PrinterStatus (their own tables, per vendor, in docs/printers.md);
 * this table is the same for every vendor.
 *
 * No row fails a job by default: a job fails only when the printer says its print ended badly
 * (cancelled, failed, error) or its own history says so. An answer the table does not know keeps
 * the job and flags the printer for a person; a printer that no longer remembers how our print
 * ended sends the part to QC with a note, where a person looks at the bed.
 */

/** Where the held job is: sent and not yet seen printing, or seen printing. */
export type HeldPhase = 'uploading' | 'printing';

/** Whether the file the printer names is the held job's, another one, or none at all. */
export type FileMatch = 'ours' | 'other' | 'none';

export type Reading =
  /** Nothing to do: the job stays as it is (the board shows why from the printer's state). */
  | { readonly kind: 'wait' }
  /** Our print is on the printer: keep its progress. */
  | { readonly kind: 'progress' }
  /** The upload took: the job is printing. */
  | { readonly kind: 'started' }
  /** The upload never turned into a print: back to the queue. */
  | { readonly kind: 'requeue' }
  /** The print ended well, or the printer cannot tell (`note` then asks QC to look closely). */
  | { readonly kind: 'printed'; readonly note: string | null }
  | { readonly kind: 'failed'; readonly reason: string }
  /** The printer no longer names our job: ask it how the print ended (`lastOutcome`). */
  | { readonly kind: 'ask-outcome' }
  /** Keep the job, and ask a person to look at the printer. */
  | { readonly kind: 'flag'; readonly reason: string };

type Row = readonly [
  phase: HeldPhase | '*',
  state: PrinterState | '*',
  file: FileMatch | '*',
  decide: (status: PrinterStatus, printerName: string) => Reading,
];

const wait = (): Reading => ({ kind: 'wait' });
const progress = (): Reading => ({ kind: 'progress' });
const started = (): Reading => ({ kind: 'started' });
const printed = (): Reading => ({ kind: 'printed', note: null });
const askOutcome = (): Reading => ({ kind: 'ask-outcome' });
const inWords = (status: PrinterStatus) => (status.errorText ? `: ${status.errorText}` : '');

/**
 * The table, first matching row wins. Read it as "while the job is <phase>, the printer says
 * <state> naming <file> → decision". `*` matches anything.
 */
const TABLE: readonly Row[] = [
  ['*', 'unknown', '*', (s, name) => ({ kind: 'flag', reason: `${name} answered a state Layerline does not know (“${s.vendorState ?? 'unnamed'}”${s.errorText && s.errorText !== s.vendorState ? `, ${s.errorText}` : ''}): look at the printer, then clear this flag` })],
  // Sent, not yet seen printing: the printer printing (or already done with) our file means it started.
  ['uploading', 'printing', 'ours', started],
  ['uploading', 'paused', 'ours', started],
  ['uploading', 'attention', 'ours', started],
  ['uploading', 'finished', 'ours', started],
  ['uploading', 'cancelled', 'ours', started],
  ['uploading', 'failed', 'ours', started],
  ['uploading', '*', '*', wait], // the dispatcher requeues it once the upload is older than its settle time
  // Seen printing.
  ['printing', '*', 'other', askOutcome],
  ['printing', 'printing', '*', progress],
  ['printing', 'paused', '*', progress],
  ['printing', 'attention', '*', progress],
  ['printing', 'busy', '*', wait], // finishing, cancelling, a transfer: the next answer says how it ended
  ['printing', 'finished', '*', printed],
  ['printing', 'cancelled', '*', (s, name) => ({ kind: 'failed', reason: `Stopped on ${name} (its screen or its own software)${inWords(s)}` })],
  ['printing', 'failed', '*', (s, name) => ({ kind: 'failed', reason: `The print failed on ${name}${inWords(s)}` })],
  ['printing', 'error', '*', (s, name) => ({ kind: 'failed', reason: `${name} stopped with an error${inWords(s)}` })],
  ['printing', 'idle', '*', askOutcome],
  ['printing', 'offline', '*', wait], // the host answers, the printer behind it does not: shown on the board
];

/** The file the printer names, compared with the job's. */
export const fileMatch = (status: PrinterStatus, ourFile: string): FileMatch =>
  status.fileName === null ? 'none' : status.fileName.endsWith(ourFile) ? 'ours' : 'other';

/** What to do with the held job, from the printer's answer to a status read. */
export function readPrinter(
  phase: HeldPhase,
  answer: PrinterResult<PrinterStatus>,
  ourFile: string,
  printerName: string,
): Reading {
  // No answer (unreachable, timeout, refused key, garbage): the job stays; the board shows the printer's trouble.
  if (!answer.ok) return wait();
  const status = answer.value;
  const file = fileMatch(status, ourFile);
  const row = TABLE.find(
    ([p, state, f]) => (p === '*' || p === phase) && (state === '*' || state === status.state) && (f === '*' || f === file),
  );
  return row
    ? row[3](status, printerName)
    : { kind: 'flag', reason: `${printerName} said “${status.state}” while Layerline believed it ${phase === 'printing' ? 'printed' : 'received'} a job: look at the printer, then clear this flag` };
}

/** What the printer's memory of the print decides (`lastOutcome`), once the printer stopped naming the job. */
export function readOutcome(answer: PrinterResult<PrintOutcome>, printerName: string): Reading {
  if (!answer.ok) return wait();
  const { outcome, message } = answer.value;
  const words = message ? `: ${message}` : '';
  switch (outcome) {
    case 'completed':
      return printed();
    case 'cancelled':
      return { kind: 'failed', reason: `Stopped on ${printerName} (its screen or its own software)${words}` };
    case 'failed':
      return { kind: 'failed', reason: `The print failed on ${printerName}${words}` };
    case 'unknown':
      // A person looks at the bed at QC anyway: a part that is not there fails QC and is reprinted.
      return {
        kind: 'printed',
        note: `${printerName} no longer reports this print and keeps no record of how it ended (its software restarted, or it was cleared on the printer): check the part on the bed before passing it`,
      };
  }
}
