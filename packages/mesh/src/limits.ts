/**
 * FILE-1 limits. Tests and docs import this object so the documented table and the
 * enforced values cannot drift apart.
 */
export const MESH_LIMITS = {
  allowedExtensions: ['stl', 'obj', '3mf'] as readonly string[],
  /** Upload size for any format (packed size for 3MF). */
  maxFileBytes: 200 * 1024 * 1024,
  /** Sum of the uncompressed sizes of the 3MF entries we inflate, and of all declared sizes. */
  maxUnpackedBytes: 512 * 1024 * 1024,
  maxZipEntries: 1000,
  /** Real model XML compresses 4.5-15:1, zeros 1000:1; 100:1 separates them with margin. */
  maxCompressionRatio: 100,
  /** Entries smaller than this are not ratio-checked: they cannot hurt and tiny XML compresses oddly. */
  ratioCheckMinBytes: 64 * 1024,
  maxTriangles: 4_000_000,
  maxVertices: 4_000_000,
  maxXmlDepth: 64,
  /** Component nesting in 3MF (each level may multiply the triangle count). */
  maxComponentDepth: 16,
  /**
   * Estimate work, checked before any per-layer work (issue 10): layer slices summed over the
   * objects (each is sliced on its own; ~40 µs each for small objects on the 2-core machine) and
   * triangle-plane cuts summed over the objects (16 bytes each, held at once). Above either the
   * estimate is refused with `too-complex` instead of taking the machine.
   */
  maxObjectLayers: 100_000,
  maxLayerCuts: 16_000_000,
  /**
   * The estimate's work, independent of the print's size: grid cells rasterised, measured and
   * classified over all layers of all objects (docs/quote-engine.md, "Bounded work"). A print
   * that would take more has layers interpolated between classified ones, and coarser cells
   * when even its skins would not fit; a model larger than the build volume gets 1/16 of it.
   */
  estimateCellBudget: 24_000_000,
} as const;

export type MeshLimits = typeof MESH_LIMITS;
