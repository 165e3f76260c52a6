import { isPrinterFree, type PrinterState } from '@layerline/contracts';

/**
 * Pure helpers of the production board (/admin-production): durations, sizes, attempts, colour
 * swatches and where a dragged queue row lands. Tested in production-format.test.ts.
 */

/** The bed can be confirmed clear once the printer stands still (free: its last job ended) and is reachable. */
export function bedClearable(printer: {
  bedConfirmedClear: boolean;
  connectionLost: boolean;
  adminStatus: string;
  state: { state: PrinterState } | null;
}): boolean {
  return (
    !printer.bedConfirmedClear &&
    !printer.connectionLost &&
    printer.adminStatus !== 'retired' &&
    printer.state !== null &&
    isPrinterFree(printer.state.state)
  );
}

/**
 * How a printer's bed is cleared, for its card: a printer that clears itself says so, with its
 * plates printed without a person against its cap ("Clears itself · eject G-code · 3/10 plates").
 */
export function clearingLabel(clearing: {
  kind: 'person' | 'eject_gcode' | 'plate_changer';
  clearsItself: boolean;
  unattendedPlates: number;
  maxUnattendedPlates: number | null;
}): string {
  if (!clearing.clearsItself) return 'Cleared by a person';
  const how = clearing.kind === 'eject_gcode' ? 'eject G-code' : 'plate changer';
  return `Clears itself · ${how} · ${clearing.unattendedPlates}/${clearing.maxUnattendedPlates ?? '—'} plates`;
}

/** A print time or the time left, as people read it: "45 s", "12 min", "1 h 05 min". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const total = Math.max(0, Math.round(seconds));
  if (total < 60) return `${total} s`;
  const minutes = Math.round(total / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
}

const mm = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));

/** A part's bounding box: "20 × 20 × 12.5 mm". */
export function formatSize(size: { x: number; y: number; z: number }): string {
  return `${mm(size.x)} × ${mm(size.y)} × ${mm(size.z)} mm`;
}

/** 0..1 as a whole percentage for a progress bar (null: 0). */
export function percent(progress: number | null): number {
  if (progress === null || !Number.isFinite(progress)) return 0;
  return Math.min(100, Math.max(0, Math.round(progress * 100)));
}

/** A print's progress in words: "Starting…" before the printer reports any, else "42 % · 1 h 05 min left". */
export function progressLabel(progress: number | null, secondsLeft: number | null): string {
  const hasSeconds = secondsLeft !== null && Number.isFinite(secondsLeft);
  if (percent(progress) === 0 && !hasSeconds) return 'Starting…';
  return hasSeconds
    ? `${percent(progress)} % · ${formatDuration(secondsLeft)} left`
    : `${percent(progress)} %`;
}

/** "First print", or "Reprint 2" for the second attempt at a part, and so on. */
export function attemptLabel(attempt: number): string {
  return attempt > 1 ? `Reprint ${attempt}` : 'First print';
}

/** The colour a job asks for, or the spool it asks to load: "PLA Galaxy black", "PLA (any colour)". */
export function materialLabel(material: string, colour: string): string {
  return colour.toLowerCase() === 'any' ? `${material} (any colour)` : `${material} ${colour}`;
}

/** Basic colour words, so a colour named "Ocean blue" gets a blue swatch when no spool tells its hex. */
const COLOUR_WORDS: Record<string, string> = {
  white: '#f4f4f4',
  black: '#1c1c1e',
  grey: '#9e9e9e',
  gray: '#9e9e9e',
  silver: '#c0c0c0',
  red: '#c62828',
  orange: '#ef6c00',
  yellow: '#f9a825',
  gold: '#c9a227',
  green: '#2e7d32',
  blue: '#1e88e5',
  navy: '#1a237e',
  purple: '#7b1fa2',
  violet: '#7b1fa2',
  pink: '#ec407a',
  brown: '#6d4c41',
  beige: '#d7ccc8',
  natural: '#efe6d2',
};

/** What a swatch should paint: a hex colour, every colour ("any"), or unknown (no hint in the name). */
export type Swatch = { kind: 'hex'; hex: string } | { kind: 'any' } | { kind: 'unknown' };

/** A job's colour as the board shows it: a name people say, and its swatch. */
export interface ColourInfo {
  name: string;
  swatch: Swatch;
}

const HEX = /^#[0-9a-f]{6}$/i;

/**
 * A job's colour (a print configuration's hex like "#1c1c1e", a colour name, or "any") as a name and a
 * swatch. A hex takes the name of a spool of the farm with that colour (same material first), else
 * shows itself; a name takes the hex of a spool of that name, else of a basic colour word in it.
 */
export function colourOf(
  material: string,
  colour: string,
  knownSpools: readonly { material: string; colourName: string; colourHex: string }[],
): ColourInfo {
  const value = colour.trim();
  const lower = value.toLowerCase();
  if (lower === 'any') return { name: 'any', swatch: { kind: 'any' } };
  const pick = <T extends { material: string }>(list: T[]) =>
    list.find((s) => s.material === material) ?? list[0];
  if (HEX.test(value)) {
    const spool = pick(knownSpools.filter((s) => s.colourHex.toLowerCase() === lower));
    return { name: spool?.colourName ?? lower, swatch: { kind: 'hex', hex: lower } };
  }
  const spool = pick(knownSpools.filter((s) => s.colourName.trim().toLowerCase() === lower));
  if (spool) return { name: value, swatch: { kind: 'hex', hex: spool.colourHex } };
  for (const word of lower.split(/[\s\-_/]+/).reverse()) {
    const hex = COLOUR_WORDS[word];
    if (hex) return { name: value, swatch: { kind: 'hex', hex } };
  }
  return { name: value, swatch: { kind: 'unknown' } };
}

/**
 * Where a queue row dragged onto another lands, as the move call's `beforeJobId`: moving up puts it
 * just before the row dropped on, moving down just after it (before the next row, or at the end).
 * `undefined` when nothing moves. `more` says the queue goes on past the rows shown, so "after the
 * last shown row" is not "the end of the queue": the job then goes just before that row.
 */
export function moveTarget(
  ids: readonly string[],
  draggedId: string,
  targetId: string,
  more = false,
): { beforeJobId: string | null } | undefined {
  const from = ids.indexOf(draggedId);
  const to = ids.indexOf(targetId);
  if (from < 0 || to < 0 || from === to) return undefined;
  if (from > to) return { beforeJobId: targetId };
  const next = ids[to + 1];
  if (next !== undefined) return next === draggedId ? undefined : { beforeJobId: next };
  return more ? (to - 1 === from ? undefined : { beforeJobId: targetId }) : { beforeJobId: null };
}

/** The queue after a move (for showing it at once, before the server's board comes back). */
export function reorderQueue<T extends { id: string }>(
  queue: readonly T[],
  jobId: string,
  beforeJobId: string | null,
): T[] {
  const job = queue.find((j) => j.id === jobId);
  if (!job) return [...queue];
  const rest = queue.filter((j) => j.id !== jobId);
  if (beforeJobId === null) return [...rest, job];
  const at = rest.findIndex((j) => j.id === beforeJobId);
  if (at < 0) return [...rest, job];
  return [...rest.slice(0, at), job, ...rest.slice(at)];
}
