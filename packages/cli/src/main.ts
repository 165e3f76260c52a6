import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { FILAMENT_TYPES, isFilamentType, type FilamentType } from '@layerline/contracts';
import { analyzeModel, estimatePrint, MeshError, MESH_LIMITS } from '@layerline/mesh';

const USAGE = `Usage: layerline quote FILE... [--filament ${FILAMENT_TYPES.join('|')}] [--infill PERCENT] [--layer MM] [--json]

Prices 3D models (STL, OBJ, 3MF) with the Layerline print estimate.
  --filament   material (default PLA)
  --infill     sparse infill percent, 0-100 (default 15)
  --layer      layer height in mm, 0.05-0.32 (default 0.2)
  --json       print one JSON array instead of a table
Exit codes: 0 all files quoted, 1 some file failed, 2 bad usage.`;

export interface QuoteRow {
  file: string;
  format?: string;
  triangles?: number;
  volumeMm3?: number;
  bboxMm?: [number, number, number];
  grams?: number;
  printSeconds?: number;
  costUsd?: number;
  problems?: { code: string; severity: string; message: string; count: number }[];
  error?: string;
  errorCode?: string;
}

interface Options {
  files: string[];
  filament: FilamentType;
  infill?: number;
  layer?: number;
  json: boolean;
}

class UsageError extends Error {}

export function parseArgs(argv: string[]): Options {
  if (argv[0] !== 'quote')
    throw new UsageError(argv[0] ? `Unknown command "${argv[0]}".` : 'Missing command.');
  const o: Options = { files: [], filament: 'PLA', json: false };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] =
      a.startsWith('--') && a.includes('=')
        ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]
        : [a, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${flag} needs a value.`);
      return v;
    };
    const num = (v: string, name: string, min: number, max: number): number => {
      const n = Number(v);
      if (!/^\d+(\.\d+)?$/.test(v) || !(n >= min && n <= max))
        throw new UsageError(`${name} must be a number from ${min} to ${max}.`);
      return n;
    };
    if (flag === '--json') o.json = true;
    else if (flag === '--filament') {
      const v = value();
      const match = FILAMENT_TYPES.find((f) => f.toLowerCase() === v.toLowerCase());
      if (!match || !isFilamentType(match))
        throw new UsageError(`--filament must be one of ${FILAMENT_TYPES.join(', ')}.`);
      o.filament = match;
    } else if (flag === '--infill') o.infill = num(value(), '--infill', 0, 100);
    else if (flag === '--layer') o.layer = num(value(), '--layer', 0.05, 0.32);
    else if (flag === '--help' || flag === '-h') throw new UsageError('');
    else if (flag.startsWith('-')) throw new UsageError(`Unknown option ${flag}.`);
    else o.files.push(a);
  }
  if (o.files.length === 0) throw new UsageError('No files given.');
  return o;
}

export async function quoteFile(
  path: string,
  o: Pick<Options, 'filament' | 'infill' | 'layer'>,
): Promise<QuoteRow> {
  const row: QuoteRow = { file: path };
  let bytes: Uint8Array;
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > MESH_LIMITS.maxFileBytes)
      throw new MeshError(
        'too-large',
        `The file is ${st.size} bytes; the limit is ${MESH_LIMITS.maxFileBytes}.`,
      );
    bytes = await readFile(path);
  } catch (err) {
    if (err instanceof MeshError) return { ...row, error: err.message, errorCode: err.code };
    const e = err as NodeJS.ErrnoException;
    return {
      ...row,
      error: e.code === 'ENOENT' ? 'File not found.' : `Cannot read the file (${e.message}).`,
      errorCode: 'io',
    };
  }
  try {
    const a = await analyzeModel(bytes, { fileName: basename(path) });
    const e = estimatePrint(a, { filament: o.filament, infillPercent: o.infill, layerHeightMm: o.layer });
    row.format = a.format;
    row.triangles = a.triangleCount;
    row.volumeMm3 = round(a.volumeMm3, 3);
    row.bboxMm = a.bbox.size.map((v) => round(v, 3)) as [number, number, number];
    row.grams = round(e.grams, 2);
    row.printSeconds = Math.round(e.printSeconds);
    row.costUsd = round(e.costUsd, 2);
    row.problems = a.problems.map(({ code, severity, message, count }) => ({
      code,
      severity,
      message,
      count,
    }));
  } catch (err) {
    if (err instanceof MeshError) return { ...row, error: err.message, errorCode: err.code };
    // A bug in the engine, not a problem of the file: said so, and the other files are still quoted.
    return {
      ...row,
      error: `Internal error while quoting this file: ${(err as Error)?.message ?? err}`,
      errorCode: 'internal',
    };
  }
  return row;
}

function round(v: number, d: number): number {
  const k = 10 ** d;
  return Math.round(v * k) / k;
}

function duration(s: number): string {
  const h = Math.floor(s / 3600),
    m = Math.floor((s % 3600) / 60);
  return h ? `${h}h ${String(m).padStart(2, '0')}m` : `${m}m ${String(Math.round(s % 60)).padStart(2, '0')}s`;
}

export function formatTable(rows: QuoteRow[]): string {
  const head = [
    'file',
    'format',
    'triangles',
    'volume cm³',
    'size mm',
    'grams',
    'time',
    'cost $',
    'problems',
  ];
  const body = rows.map((r) =>
    r.error
      ? [basename(r.file), 'ERROR', '', '', '', '', '', '', r.error]
      : [
          basename(r.file),
          r.format!,
          String(r.triangles),
          (r.volumeMm3! / 1000).toFixed(2),
          r.bboxMm!.map((v) => v.toFixed(1)).join(' x '),
          r.grams!.toFixed(2),
          duration(r.printSeconds!),
          r.costUsd!.toFixed(2),
          r
            .problems!.filter((p) => p.severity !== 'info')
            .map((p) => p.code)
            .join(', ') || '-',
        ],
  );
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= 2 && i <= 7 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  let o: Options;
  try {
    o = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      if (e.message) process.stderr.write(`layerline: ${e.message}\n\n`);
      process.stderr.write(USAGE + '\n');
      return 2;
    }
    throw e;
  }
  const rows: QuoteRow[] = [];
  // One file at a time keeps peak memory to one model.
  for (const f of o.files) rows.push(await quoteFile(f, o));
  process.stdout.write(o.json ? JSON.stringify(rows, null, 2) + '\n' : formatTable(rows) + '\n');
  return rows.some((r) => r.error) ? 1 : 0;
}
