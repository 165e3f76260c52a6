import { execFile } from 'node:child_process';
import os from 'node:os';
import { findExecutable } from './find-executable.ts';
import { SANDBOX_PATH } from './sandbox.ts';

export interface PrusaSlicerInfo {
  available: boolean;
  /** e.g. `2.5.0+UNKNOWN` (Debian's build), as the binary prints it. */
  version: string | null;
  /** Absolute path of the binary. */
  path: string | null;
}

export interface DetectOptions {
  /** A path or a bare name (looked up in PATH); default `prusa-slicer`. The config module maps PRUSA_SLICER_PATH here. */
  binaryPath?: string;
}

const cache = new Map<string, Promise<PrusaSlicerInfo>>();

/**
 * Finds PrusaSlicer and reads its version from the first line of `--help`
 * ("PrusaSlicer-2.5.0+UNKNOWN based on Slic3r"); 2.5 has no `--version`, later releases do, so
 * that is the fallback. The result is cached per binaryPath for the life of the process.
 */
export function detectPrusaSlicer(options: DetectOptions = {}): Promise<PrusaSlicerInfo> {
  const key = options.binaryPath ?? 'prusa-slicer';
  let found = cache.get(key);
  if (!found) {
    found = detect(key);
    cache.set(key, found);
  }
  return found;
}

const VERSION = /PrusaSlicer-(\d+\.\d+\.\d+\S*)/;

function firstOutput(file: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { timeout: 20_000, maxBuffer: 1024 * 1024, cwd: os.tmpdir(), env: { PATH: SANDBOX_PATH, HOME: os.tmpdir(), LANG: 'C.UTF-8' } },
      (_error, stdout, stderr) => resolve(`${stdout}\n${stderr}`),
    );
  });
}

async function detect(binary: string): Promise<PrusaSlicerInfo> {
  const resolved = await findExecutable(binary);
  if (!resolved) return { available: false, version: null, path: null };
  for (const flag of ['--help', '--version']) {
    const match = VERSION.exec(await firstOutput(resolved, [flag]));
    if (match?.[1]) return { available: true, version: match[1], path: resolved };
  }
  // Something is there but it does not say it is PrusaSlicer.
  return { available: false, version: null, path: resolved };
}
