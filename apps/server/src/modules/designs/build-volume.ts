/**
 * The build volumes a design may be printed in (port). Today one configured maximum
 * (MAX_BUILD_VOLUME_MM); once the farm's printers are in the database, an implementation that
 * lists the active printers' volumes takes its place: a model is accepted when it fits one of them.
 */
export type BuildVolume = readonly [x: number, y: number, z: number];

export interface BuildVolumes {
  list(): Promise<readonly BuildVolume[]>;
}

export function configuredBuildVolumes(max: BuildVolume): BuildVolumes {
  const volumes = [max] as const;
  return { list: async () => volumes };
}

export interface Unprintable {
  /** Why, with the model's size and the limit, for the seller. */
  reason: string;
}

const ORDERS = [[0, 1, 2], [1, 0, 2], [0, 2, 1], [2, 0, 1], [1, 2, 0], [2, 1, 0]] as const;
const mm = (v: number) => (Math.round(v * 10) / 10).toLocaleString('en-US');

/**
 * Whether objects of these sizes (mm, as laid) can be printed together in one of the volumes:
 * the farm may turn an object by 90° about any axis, so each object must fit in some axis order,
 * and the objects of one file (3MF build items) share one bed, so the smallest footprints they can
 * have must add up to no more than the bed. Only certain misfits are refused: packing is not solved.
 */
export function checkPrintable(objects: readonly (readonly [number, number, number])[], volumes: readonly BuildVolume[], overall: readonly [number, number, number]): Unprintable | null {
  if (volumes.length === 0) return null;
  let best: Unprintable | null = null;
  for (const volume of volumes) {
    let footprint = 0;
    let misfit: (readonly [number, number, number]) | undefined;
    for (const size of objects) {
      let smallest = Infinity;
      for (const [a, b, c] of ORDERS) {
        if (size[a] <= volume[0] && size[b] <= volume[1] && size[c] <= volume[2]) smallest = Math.min(smallest, size[a] * size[b]);
      }
      if (smallest === Infinity) {
        misfit = size;
        break;
      }
      footprint += smallest;
    }
    const limit = `${volume.map(mm).join(' × ')} mm`;
    if (misfit) {
      const what = objects.length > 1 ? `one of its ${objects.length.toLocaleString('en-US')} objects measures` : 'it measures';
      best ??= { reason: `${what} ${misfit.map(mm).join(' × ')} mm, and the largest build volume of the print farm is ${limit}, in any orientation` };
      continue;
    }
    const bed = volume[0] * volume[1];
    if (footprint > bed) {
      best ??= {
        reason: `its ${objects.length.toLocaleString('en-US')} objects (${overall.map(mm).join(' × ')} mm in all) need at least ${mm(footprint)} mm² of bed together, and the largest bed of the print farm is ${volume[0]} × ${volume[1]} mm (${mm(bed)} mm²)`,
      };
      continue;
    }
    return null;
  }
  return best;
}
