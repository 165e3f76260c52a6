import { SlicerError } from './errors.ts';

/**
 * PrusaSlicer's vendor bundles (`<Vendor>.ini`, e.g. /usr/share/PrusaSlicer/profiles/PrusaResearch.ini)
 * as PrusaSlicer itself reads them: `[type:name]` sections of `key = value` lines, `#` or `;`
 * comments, and `inherits = a; b` naming parents of the same type. Parents apply in order (a later
 * one overrides an earlier one) and the section's own keys override them all; sections named
 * `*like this*` exist only to be inherited. Values stay as written (`\n` escapes included): they
 * go back to PrusaSlicer in an ini of the same format.
 */

export type IniSection = ReadonlyMap<string, string>;

export interface VendorIni {
  /** By header, e.g. `printer:Original Prusa i3 MK3S & MK3S+`, in file order. */
  readonly sections: ReadonlyMap<string, IniSection>;
}

export function parseVendorIni(text: string): VendorIni {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      const name = header[1]!.trim();
      current = sections.get(name) ?? new Map<string, string>();
      sections.set(name, current);
      continue;
    }
    const equals = line.indexOf('=');
    if (equals <= 0 || !current) continue;
    current.set(line.slice(0, equals).trim(), line.slice(equals + 1).trim());
  }
  return { sections };
}

/** A section with every inherited key in place (`inherits` itself dropped). */
export function resolveSection(ini: VendorIni, header: string): Map<string, string> {
  return resolve(ini, header, []);
}

function resolve(ini: VendorIni, header: string, chain: readonly string[]): Map<string, string> {
  if (chain.includes(header)) throw new SlicerError('failed', `The slicer profile [${header}] inherits itself (${[...chain, header].join(' → ')})`);
  const own = ini.sections.get(header);
  if (!own) {
    const child = chain.at(-1);
    throw new SlicerError('failed', child ? `The slicer profile [${child}] inherits ${nameOf(header)}, which its bundle does not have` : `The slicer profile [${header}] is not in its bundle`);
  }
  const resolved = new Map<string, string>();
  const type = typeOf(header);
  for (const parent of parentsOf(own)) {
    for (const [key, value] of resolve(ini, `${type}:${parent}`, [...chain, header])) resolved.set(key, value);
  }
  for (const [key, value] of own) if (key !== 'inherits') resolved.set(key, value);
  return resolved;
}

function parentsOf(section: IniSection): string[] {
  return (section.get('inherits') ?? '')
    .split(';')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
}

const typeOf = (header: string) => header.slice(0, header.indexOf(':'));
export const nameOf = (header: string) => header.slice(header.indexOf(':') + 1);

/** `*common*`: a section that only exists to be inherited, never a preset of its own. */
export const isAbstract = (name: string) => name.startsWith('*') && name.endsWith('*');
