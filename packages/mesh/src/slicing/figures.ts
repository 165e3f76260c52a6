/**
 * What the classifier measures on each layer, FIGURES numbers a layer in a Float64Array: the
 * areas in cells of the object's grid (fractional: a cell partly in a band counts in part), the
 * sparse region's outline in cell edges, the counts of islands and holes, the cells inside, and the
 * outlines of the solid, top and bridge regions in cell edges.
 */
export const FIGURES = 12;
export const FIG = {
  perimeter: 0,
  solid: 1,
  top: 2,
  bridge: 3,
  sparse: 4,
  sparseEdges: 5,
  islands: 6,
  holes: 7,
  inside: 8,
  solidEdges: 9,
  topEdges: 10,
  bridgeEdges: 11,
} as const;
