import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/**
 * Reads the statistics PrusaSlicer writes as comments near the end of its G-code:
 *
 *   ; filament used [mm] = 1172.20
 *   ; filament used [cm3] = 2.82
 *   ; total filament used [g] = 3.50
 *   ; estimated printing time (normal mode) = 28m 9s
 *
 * (the same lines models/README.md greps for the reference numbers).
 */
export interface GcodeSummary {
  filamentMm: number;
  filamentCm3: number;
  grams: number;
  printSeconds: number;
}

const KEYS = {
  filamentMm: 'filament used [mm]',
  filamentCm3: 'filament used [cm3]',
  grams: 'total filament used [g]',
  printTime: 'estimated printing time (normal mode)',
} as const;

type Field = keyof typeof KEYS;
const BY_KEY = new Map<string, Field>(Object.entries(KEYS).map(([field, key]) => [key, field as Field]));

/** `1d 2h 3m 4s`, `28m 9s`, `45s` → seconds; null for anything else. */
export function parsePrintTime(text: string): number | null {
  const match = /^(?:(\d+)d\s*)?(?:(\d+)h\s*)?(?:(\d+)m\s*)?(?:(\d+)s)?$/.exec(text.trim());
  if (!match || text.trim() === '') return null;
  const [, d = '0', h = '0', m = '0', s = '0'] = match;
  return Number(d) * 86_400 + Number(h) * 3_600 + Number(m) * 60 + Number(s);
}

/** A per-extruder list (`12.5, 3.0`) is summed; one extruder gives one number. */
function parseAmount(text: string): number | null {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^-?\d+(?:\.\d+)?$/.test(p))) return null;
  return parts.reduce((sum, p) => sum + Number(p), 0);
}

/** Collects the four values from G-code text; missing ones stay absent. */
function collect(lines: Iterable<string>, into: Partial<Record<Field, string>>): void {
  for (const line of lines) {
    if (!line.startsWith('; ')) continue;
    const eq = line.indexOf(' = ');
    if (eq < 0) continue;
    const field = BY_KEY.get(line.slice(2, eq));
    if (field) into[field] = line.slice(eq + 3).trim();
  }
}

function finish(raw: Partial<Record<Field, string>>): GcodeSummary | null {
  if (raw.filamentMm === undefined || raw.filamentCm3 === undefined || raw.grams === undefined || raw.printTime === undefined) {
    return null;
  }
  const filamentMm = parseAmount(raw.filamentMm);
  const filamentCm3 = parseAmount(raw.filamentCm3);
  const grams = parseAmount(raw.grams);
  const printSeconds = parsePrintTime(raw.printTime);
  if (filamentMm === null || filamentCm3 === null || grams === null || printSeconds === null) return null;
  return { filamentMm, filamentCm3, grams, printSeconds };
}

/** Parses G-code text held in memory (tests, small files). */
export function parseGcodeSummary(text: string): GcodeSummary | null {
  const raw: Partial<Record<Field, string>> = {};
  collect(text.split(/\r?\n/), raw);
  return finish(raw);
}

const TAIL_BYTES = 512 * 1024;

/**
 * Reads the summary from a G-code file: the last 512 KiB first (where PrusaSlicer puts it,
 * before its config dump), then the whole file streamed line by line if that was not enough.
 */
export async function readGcodeSummary(file: string): Promise<GcodeSummary | null> {
  const handle = await open(file, 'r');
  let tail: string;
  let wholeFileRead: boolean;
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    tail = buffer.toString('utf8');
    wholeFileRead = length === size;
  } finally {
    await handle.close();
  }
  const fromTail = parseGcodeSummary(tail);
  if (fromTail || wholeFileRead) return fromTail;

  const raw: Partial<Record<Field, string>> = {};
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) collect([line], raw);
  return finish(raw);
}
