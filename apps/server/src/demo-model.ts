/**
 * A twisted hexagonal vase, generated rather than shipped (the test corpus is not ours to ship):
 * a closed, consistently wound binary STL for the demo seller's first design.
 */
export function demoVaseStl(options: { sides?: number; rings?: number; heightMm?: number } = {}): Buffer {
  const sides = options.sides ?? 6;
  const rings = options.rings ?? 40;
  const height = options.heightMm ?? 80;
  const point = (ring: number, side: number): [number, number, number] => {
    const t = ring / (rings - 1);
    const radius = 22 + 10 * Math.sin(Math.PI * t * 1.2) - 6 * t;
    const angle = (2 * Math.PI * side) / sides + t * Math.PI * 0.6; // the twist
    return [40 + radius * Math.cos(angle), 40 + radius * Math.sin(angle), t * height];
  };
  const triangles: [number, number, number][][] = [];
  for (let r = 0; r < rings - 1; r++) {
    for (let s = 0; s < sides; s++) {
      const a = point(r, s), b = point(r, (s + 1) % sides), c = point(r + 1, (s + 1) % sides), d = point(r + 1, s);
      triangles.push([a, b, c], [a, c, d]);
    }
  }
  const bottom: [number, number, number] = [40, 40, 0];
  const top: [number, number, number] = [40, 40, height];
  for (let s = 0; s < sides; s++) {
    triangles.push([bottom, point(0, (s + 1) % sides), point(0, s)]);
    triangles.push([top, point(rings - 1, s), point(rings - 1, (s + 1) % sides)]);
  }
  const buffer = Buffer.alloc(84 + triangles.length * 50);
  buffer.write('Layerline demo vase', 0, 'ascii');
  buffer.writeUInt32LE(triangles.length, 80);
  triangles.forEach((triangle, i) => {
    const offset = 84 + i * 50 + 12; // normal left as zero: readers compute it from the winding
    triangle.forEach((vertex, v) => vertex.forEach((coordinate, k) => buffer.writeFloatLE(coordinate, offset + v * 12 + k * 4)));
  });
  return buffer;
}
