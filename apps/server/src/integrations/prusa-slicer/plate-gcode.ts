/**
 * The G-code of a plate of several parts (issue 22, docs/print-farm.md "Plates"): what PrusaSlicer
 * 2.5 wrote must hold every part Layerline put on the plate, where it put it, before a printer gets
 * it; and Klipper needs its own object markers to skip one part mid-print.
 *
 * PrusaSlicer 2.5 with `gcode_label_objects = 1` (profile.ini) and `--merge` wraps each object's
 * moves on each layer in `; printing object <name> id:<i> copy <c>` … `; stop printing object …`,
 * `<name>` being the input file's name and `<i>` its place among the inputs (GCode.cpp,
 * `_process_layer`); the 2.6 "firmware" mode that writes EXCLUDE_OBJECT itself is not in 2.5.
 */

/** One part as placed on the plate (plate-packer.ts): its label and its footprint on the bed. */
export interface PlateGcodePart {
  /** Letters, digits and underscore: the object's name in the G-code and for Klipper. */
  readonly label: string;
  readonly centerX: number;
  readonly centerY: number;
  /** The footprint as placed (after any 90° turn), mm. */
  readonly width: number;
  readonly depth: number;
}

export const PLATE_LABEL = /^[A-Za-z0-9_]{1,40}$/;

/** The input file each part is sliced from, so PrusaSlicer's object name is the label plus `.stl`. */
export const plateInputName = (label: string) => `${label}.stl`;

const OBJECT_MARK = /^; (stop )?printing object (\S+?)\.stl id:(\d+) copy (\d+)\s*$/;
/** How far an extrusion may stray outside a part's footprint (a perimeter's width, rounding) before it is someone else's. */
const FOOTPRINT_TOLERANCE_MM = 1.5;

/**
 * What is wrong with the plate's G-code, in words, or an empty list: every part labelled, under
 * its own index, printed somewhere, nothing labelled that is not on the plate, and each part's
 * extrusions inside its own footprint (so the slicer placed it where the packer said).
 */
export function plateGcodeProblems(gcode: string, parts: readonly PlateGcodePart[]): string[] {
  const problems: string[] = [];
  const index = new Map(parts.map((p, i) => [p.label, i]));
  const seen = new Set<string>();
  const unknown = new Set<string>();
  const strays = new Map<string, number>();
  let current: string | null = null;
  let x: number | null = null;
  let y: number | null = null;
  for (const line of gcode.split('\n')) {
    const mark = OBJECT_MARK.exec(line);
    if (mark) {
      const [, stop, label, id] = mark;
      const expected = index.get(label!);
      if (expected === undefined) {
        if (!stop && !unknown.has(label!)) problems.push(`The G-code prints an object Layerline did not put on the plate: ${label}`);
        unknown.add(label!);
        current = null;
        continue;
      }
      if (!stop && !seen.has(label!) && Number(id) !== expected)
        problems.push(`${label} is object ${id} in the G-code, not ${expected}`);
      current = stop ? null : label!;
      if (!stop) seen.add(label!);
      continue;
    }
    if (!line.startsWith('G1 ') && !line.startsWith('G0 ')) continue;
    const words = line.split(';')[0]!.split(/\s+/);
    let extrudes = false;
    for (const word of words) {
      if (word.startsWith('X')) x = Number(word.slice(1));
      else if (word.startsWith('Y')) y = Number(word.slice(1));
      else if (word.startsWith('E') && Number(word.slice(1)) > 0) extrudes = true;
    }
    if (!extrudes || current === null || x === null || y === null) continue;
    const part = parts[index.get(current)!]!;
    const outside =
      Math.abs(x - part.centerX) > part.width / 2 + FOOTPRINT_TOLERANCE_MM ||
      Math.abs(y - part.centerY) > part.depth / 2 + FOOTPRINT_TOLERANCE_MM;
    if (outside) strays.set(current, (strays.get(current) ?? 0) + 1);
  }
  for (const part of parts) if (!seen.has(part.label)) problems.push(`The G-code does not print ${part.label}`);
  for (const [label, count] of strays)
    problems.push(`${label} is not where the plate put it: ${count} extrusions outside its footprint`);
  return problems;
}

const n = (v: number) => String(Math.round(v * 1000) / 1000);

/**
 * The G-code with Klipper's exclude_object markers added beside PrusaSlicer's labels (Klipper
 * docs/Exclude_Object.md: EXCLUDE_OBJECT_DEFINE with NAME, CENTER and POLYGON before the first
 * object, EXCLUDE_OBJECT_START/END around each object's moves), so a Klipper printer can skip one
 * part and finish the rest. Other firmwares ignore them as unknown commands.
 */
export function withExcludeObjectMarkers(gcode: string, parts: readonly PlateGcodePart[]): string {
  const lines = gcode.split('\n');
  const out: string[] = [];
  let defined = false;
  for (const line of lines) {
    const mark = OBJECT_MARK.exec(line);
    if (!mark) {
      out.push(line);
      continue;
    }
    const [, stop, label] = mark;
    if (!defined) {
      for (const part of parts) {
        const x0 = part.centerX - part.width / 2;
        const x1 = part.centerX + part.width / 2;
        const y0 = part.centerY - part.depth / 2;
        const y1 = part.centerY + part.depth / 2;
        const polygon = `[[${n(x0)},${n(y0)}],[${n(x1)},${n(y0)}],[${n(x1)},${n(y1)}],[${n(x0)},${n(y1)}]]`;
        out.push(`EXCLUDE_OBJECT_DEFINE NAME=${part.label} CENTER=${n(part.centerX)},${n(part.centerY)} POLYGON=${polygon}`);
      }
      defined = true;
    }
    if (stop) out.push(`EXCLUDE_OBJECT_END NAME=${label}`, line);
    else out.push(line, `EXCLUDE_OBJECT_START NAME=${label}`);
  }
  return out.join('\n');
}
