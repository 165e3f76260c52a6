import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { SlicerPrinterPreset, SlicerPrinterPresets } from '@layerline/contracts';
import { SlicerError } from './errors.ts';
import { findExecutable } from './find-executable.ts';
import { isAbstract, nameOf, parseVendorIni, resolveSection, type VendorIni } from './vendor-ini.ts';

/**
 * PrusaSlicer's vendor bundles where PrusaSlicer installed them, read at run time and never copied
 * into Layerline (they are AGPL-3, PrusaSlicer's own). Looked for, in order:
 * 1. PRUSASLICER_PROFILES_DIR (documented in .env.example);
 * 2. beside the binary: `<prefix>/share/PrusaSlicer/profiles` for /usr/bin/prusa-slicer (Debian's
 *    package: /usr/share/PrusaSlicer/profiles/<Vendor>.ini) and `resources/profiles` next to it
 *    (PrusaSlicer's own release archives);
 * 3. /usr/share/PrusaSlicer/profiles.
 * Each bundle is parsed once per process.
 */

export const DEBIAN_PROFILES_DIR = '/usr/share/PrusaSlicer/profiles';

export interface BundleOptions {
  /** The PrusaSlicer binary (path or name in PATH); default `prusa-slicer`. */
  binaryPath?: string;
  /** Overrides every other place; default PRUSASLICER_PROFILES_DIR. */
  profilesDir?: string;
}

async function isDirectory(dir: string): Promise<boolean> {
  return (await stat(dir).catch(() => null))?.isDirectory() ?? false;
}

/** The directory holding `<Vendor>.ini`, or null when PrusaSlicer's bundles are nowhere to be found. */
export async function findProfilesDir(options: BundleOptions = {}): Promise<string | null> {
  const override = options.profilesDir ?? process.env.PRUSASLICER_PROFILES_DIR;
  if (override) return (await isDirectory(override)) ? path.resolve(override) : null;
  const candidates: string[] = [];
  const binary = await findExecutable(options.binaryPath ?? 'prusa-slicer');
  if (binary) {
    const binDir = path.dirname(await realpath(binary).catch(() => binary));
    candidates.push(path.join(binDir, '..', 'share', 'PrusaSlicer', 'profiles'), path.join(binDir, 'resources', 'profiles'));
  }
  candidates.push(DEBIAN_PROFILES_DIR);
  for (const candidate of candidates) if (await isDirectory(candidate)) return path.resolve(candidate);
  return null;
}

const bundles = new Map<string, Promise<VendorIni>>();

/** `<dir>/<vendor>.ini`, parsed once per process. */
export function loadVendorBundle(dir: string, vendor: string): Promise<VendorIni> {
  if (!/^[A-Za-z0-9_-]+$/.test(vendor)) return Promise.reject(new SlicerError('failed', `“${vendor}” is not a PrusaSlicer vendor bundle name`));
  const file = path.join(dir, `${vendor}.ini`);
  let loaded = bundles.get(file);
  if (!loaded) {
    loaded = readFile(file, 'utf8').then(parseVendorIni, (error: unknown) => {
      bundles.delete(file);
      throw new SlicerError('failed', `PrusaSlicer's ${vendor} profiles are not installed (no ${vendor}.ini in ${dir})`, { cause: error });
    });
    bundles.set(file, loaded);
  }
  return loaded;
}

/** Every FFF printer preset of every installed bundle (abstract and SLA sections left out), by vendor then name. */
export async function listPrinterPresets(options: BundleOptions = {}): Promise<SlicerPrinterPresets> {
  const dir = await findProfilesDir(options);
  if (!dir) return { available: false, presets: [] };
  const vendors = (await readdir(dir)).filter((name) => name.endsWith('.ini')).map((name) => name.slice(0, -4)).sort();
  const presets: SlicerPrinterPreset[] = [];
  for (const vendor of vendors) {
    const ini = await loadVendorBundle(dir, vendor).catch(() => null);
    if (!ini) continue;
    for (const header of ini.sections.keys()) {
      if (!header.startsWith('printer:') || isAbstract(nameOf(header))) continue;
      const preset = presetOf(ini, vendor, header);
      if (preset) presets.push(preset);
    }
  }
  return { available: presets.length > 0, presets };
}

function presetOf(ini: VendorIni, vendor: string, header: string): SlicerPrinterPreset | null {
  let resolved: Map<string, string>;
  try {
    resolved = resolveSection(ini, header);
  } catch {
    return null; // a preset whose parents its bundle lacks cannot be sliced with; it is not offered
  }
  if (resolved.get('printer_technology') === 'SLA') return null;
  const bed = bedOf(resolved.get('bed_shape') ?? '');
  const maxHeightMm = Number(resolved.get('max_print_height'));
  const nozzleMm = Number((resolved.get('nozzle_diameter') ?? '').split(',')[0]);
  if (!bed || !(maxHeightMm > 0) || !(nozzleMm > 0)) return null;
  return { vendor, preset: nameOf(header), bedMm: bed, maxHeightMm, nozzleMm };
}

/** The bounding box of a `bed_shape` polygon (`0x0,250x0,250x210,0x210`), in mm. */
export function bedOf(bedShape: string): { x: number; y: number } | null {
  const points = bedShape.split(',').map((point) => point.split('x').map(Number));
  if (points.length < 3 || points.some((p) => p.length !== 2 || p.some((n) => !Number.isFinite(n)))) return null;
  const span = (axis: 0 | 1) => Math.max(...points.map((p) => p[axis]!)) - Math.min(...points.map((p) => p[axis]!));
  return { x: span(0), y: span(1) };
}
