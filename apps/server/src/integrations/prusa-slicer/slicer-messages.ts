import { SlicerError } from './errors.ts';
import type { SandboxRun } from './sandbox.ts';

/**
 * Turns what PrusaSlicer 2.5 printed into our closed list of outcomes and readable messages.
 * Messages seen on the corpus (models/REFERENCE.tsv):
 *   rc 134  "terminate called ... what():  Objects could not fit on the bed"
 *   rc 1    "There is an object with no extrusions in the first layer." / "No layers were detected. ..."
 *           "The print is empty. ..." / "stl_open_count_facets: The input is an empty file"
 *   rc 1    "std::bad_alloc" (address-space limit hit while slicing)
 *   rc 127  "error while loading shared libraries: ...: failed to map segment" (limit below start-up needs)
 *   stdout  "print warning: Empty layer between 0 and 0.8." on successful runs
 */

const MEMORY = [/std::bad_alloc/, /failed to map segment/i, /cannot allocate memory/i, /out of memory/i, /memory exhausted/i];
const DOES_NOT_FIT = [/could not fit on the bed/i, /outside of the print area/i, /exceeds the maximum build volume/i];
const EMPTY_PRINT = [
  /no extrusions in the first layer/i,
  /no layers were detected/i,
  /the print is empty/i,
  /nothing to print/i,
];

const NOISE = [
  /^\[[^\]]*\] \[0x[0-9a-f]+\] \[(trace|debug|info)\]/i,
  /^\d+ => /,
  /^terminate called after throwing/,
  /^Command (exited|terminated)/,
];

/** Removes scratch paths (the customer never sees our directories) and log prefixes. */
export function cleanLine(line: string, scratchDir: string): string {
  return line
    .split(`${scratchDir}/`)
    .join('')
    .split(scratchDir)
    .join('')
    .replace(/^\[[^\]]*\] \[0x[0-9a-f]+\] \[(error|warning|fatal)\]\s*/i, '')
    .replace(/^\s*what\(\):\s*/, '')
    .replace(/^[a-z_0-9]+_[a-z_0-9]+:\s+/, '') // internal function names such as stl_open_count_facets:
    .trim();
}

function meaningfulLines(text: string, scratchDir: string): string[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '' && !NOISE.some((re) => re.test(line)))
    .map((line) => cleanLine(line, scratchDir))
    .filter((line) => line !== '');
}

/** The slicer's own explanation, shortened to something a person can read. */
function explain(run: SandboxRun, scratchDir: string, fallback: string): string {
  const lines = [...meaningfulLines(run.stderr, scratchDir), ...meaningfulLines(run.stdout, scratchDir)];
  const picked = lines.filter((l) => !/^Object name:/i.test(l)).slice(0, 3);
  const text = picked.join(' ').replace(/\s+/g, ' ').trim();
  if (text === '') return fallback;
  return text.length > 400 ? `${text.slice(0, 397)}...` : text;
}

/** Last lines of both streams, paths removed: for logs. */
export function outputForLogs(run: SandboxRun, scratchDir: string): string {
  const all = [...meaningfulLines(run.stderr, scratchDir), ...meaningfulLines(run.stdout, scratchDir)];
  return all.slice(-20).join('\n');
}

export interface FailureContext {
  scratchDir: string;
  timeoutMs: number;
  cpuSeconds: number;
  memoryLimitBytes: number;
}

/** The error for a run that did not produce G-code (timedOut, killed, non-zero exit). */
export function classifyFailure(run: SandboxRun, ctx: FailureContext): SlicerError {
  const details = { exitCode: run.exitCode, signal: run.signal, pid: run.pid, output: outputForLogs(run, ctx.scratchDir) };
  const text = `${run.stderr}\n${run.stdout}`;
  const mib = Math.round(ctx.memoryLimitBytes / 1024 ** 2);

  if (run.aborted) return new SlicerError('failed', 'Slicing was cancelled', details);
  if (run.timedOut) {
    return new SlicerError('timeout', `Slicing took longer than ${Math.round(ctx.timeoutMs / 100) / 10} s and was stopped`, details);
  }
  if (run.signal === 'SIGXCPU') {
    return new SlicerError('timeout', `Slicing used more than ${ctx.cpuSeconds} s of CPU time and was stopped`, details);
  }
  if (MEMORY.some((re) => re.test(text))) {
    return new SlicerError('memory', `Slicing needed more than the ${mib} MiB memory limit`, details);
  }
  if (DOES_NOT_FIT.some((re) => re.test(text))) {
    return new SlicerError('does-not-fit', 'The model does not fit on the print bed (PrusaSlicer: "Objects could not fit on the bed")', details);
  }
  if (EMPTY_PRINT.some((re) => re.test(text))) {
    return new SlicerError('empty-print', `Nothing printable came out of the model: ${explain(run, ctx.scratchDir, 'the print is empty')}`, details);
  }
  if (/input is an empty file/i.test(text)) {
    return new SlicerError('failed', 'The model file is empty', details);
  }
  if (run.signal === 'SIGXFSZ') {
    return new SlicerError('failed', 'The G-code grew past the output size limit', details);
  }
  if (run.signal === 'SIGKILL') {
    // Not ours (timedOut/aborted are handled above): the CPU hard limit or the kernel OOM killer.
    return new SlicerError('failed', 'The slicer was killed by the system (resource limit)', details);
  }
  const how = run.signal ? `was ended by ${run.signal}` : `exited with code ${run.exitCode}`;
  return new SlicerError('failed', `The slicer could not process the model: ${explain(run, ctx.scratchDir, `it ${how}`)}`, details);
}

/**
 * `print warning:` blocks on stdout of successful runs ("Empty layer between 0 and 0.8."),
 * one warning per line, without the object name and the generic advice sentence.
 */
export function extractWarnings(stdout: string, scratchDir: string): string[] {
  const warnings: string[] = [];
  const lines = stdout.split(/\r?\n/);
  let inBlock = false;
  for (const raw of lines) {
    const line = cleanLine(raw, scratchDir);
    if (/^print warning:/i.test(line)) {
      inBlock = true;
      const rest = line.replace(/^print warning:\s*/i, '');
      if (rest) warnings.push(`PrusaSlicer: ${rest}`);
      continue;
    }
    if (!inBlock) continue;
    if (/^Slicing result exported/i.test(line) || /^\d+ => /.test(line)) {
      inBlock = false;
      continue;
    }
    if (line === '' || /^Object name:/i.test(line) || /^Make sure the object is printable/i.test(line)) continue;
    warnings.push(`PrusaSlicer: ${line}`);
  }
  return warnings;
}
