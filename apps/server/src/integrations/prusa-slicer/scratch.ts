import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, chown, copyFile, mkdir, mkdtemp, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The per-job scratch directory: created fresh (mkdtemp), holding copies under our own names,
 * removed by the caller in a finally. The G-code is handed over as a file of its own.
 */

export const SCRATCH_PREFIX = 'layerline-slice-';
export const GCODE_PREFIX = 'layerline-gcode-';

/** Every ancestor must be searchable by "others" for nobody to reach the scratch directory. */
export async function traversableByOthers(dir: string): Promise<boolean> {
  for (let current = dir; ; current = path.dirname(current)) {
    const info = await stat(current);
    if ((info.mode & constants.S_IXOTH) === 0) return false;
    if (path.dirname(current) === current) return true;
  }
}

export interface Scratch {
  dir: string;
  workDir: string;
  modelFile: string;
  profileFile: string;
  outFile: string;
}

/**
 * scratch/ (0711, ours)  model.<ext> (0444, a copy)  profile.ini (0444, the config given)
 *          work/ (0700, the sandbox user's: cwd, HOME, --datadir, out.gcode)
 */
export async function makeScratch(
  root: string,
  format: string,
  modelPath: string,
  profile: string,
  dropTo: { uid: number; gid: number } | null,
): Promise<Scratch> {
  const dir = await mkdtemp(path.join(root, SCRATCH_PREFIX));
  const scratch: Scratch = {
    dir,
    workDir: path.join(dir, 'work'),
    modelFile: path.join(dir, `model.${format}`),
    profileFile: path.join(dir, 'profile.ini'),
    outFile: path.join(dir, 'work', 'out.gcode'),
  };
  await copyFile(modelPath, scratch.modelFile);
  await writeFile(scratch.profileFile, profile, { flag: 'wx' });
  await chmod(scratch.modelFile, 0o444);
  await chmod(scratch.profileFile, 0o444);
  await mkdir(scratch.workDir, { mode: 0o700 });
  if (dropTo) {
    await chmod(dir, 0o711);
    await chown(scratch.workDir, dropTo.uid, dropTo.gid);
  }
  return scratch;
}

/**
 * The scratch directory for a plate of several parts (issue 22): like `makeScratch`, with every
 * part's model copied as part-<i>.<ext>; `modelFile` is the first.
 */
export async function makePlateScratch(
  root: string,
  models: readonly { readonly path: string; readonly format: string }[],
  profile: string,
  dropTo: { uid: number; gid: number } | null,
): Promise<Scratch & { modelFiles: string[] }> {
  const [first, ...rest] = models;
  if (!first) throw new Error('A plate needs at least one part');
  const scratch = await makeScratch(root, first.format, first.path, profile, dropTo);
  const modelFiles = [scratch.modelFile];
  for (const [i, model] of rest.entries()) {
    const file = path.join(scratch.dir, `part-${i + 1}.${model.format}`);
    await copyFile(model.path, file);
    await chmod(file, 0o444);
    modelFiles.push(file);
  }
  return { ...scratch, modelFiles };
}

/** Moves the G-code out of the scratch directory into a file the caller owns. */
export async function handOver(outFile: string, root: string): Promise<string> {
  const target = path.join(root, `${GCODE_PREFIX}${randomUUID()}.gcode`);
  try {
    await rename(outFile, target);
  } catch {
    await copyFile(outFile, target, constants.COPYFILE_EXCL);
    await unlink(outFile);
  }
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  if (uid !== undefined && gid !== undefined) await chown(target, uid, gid).catch(() => undefined);
  await chmod(target, 0o600);
  return target;
}

/**
 * Removes scratch directories a crashed worker left behind (the slicer itself dies with its
 * parent: setpriv --pdeathsig). Call at worker start; returns how many were removed. Never
 * touches handed-over G-code files.
 */
export async function removeStaleSlicerScratch(options: { scratchRoot: string; olderThanMs?: number }): Promise<number> {
  const cutoff = Date.now() - (options.olderThanMs ?? 60 * 60 * 1000);
  let removed = 0;
  for (const name of await readdir(options.scratchRoot)) {
    if (!name.startsWith(SCRATCH_PREFIX)) continue;
    const dir = path.join(options.scratchRoot, name);
    const info = await stat(dir).catch(() => null);
    if (!info?.isDirectory() || info.mtimeMs > cutoff) continue;
    await rm(dir, { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}
