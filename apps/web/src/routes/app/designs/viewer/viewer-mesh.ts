/**
 * The server's viewer mesh: little-endian u32 vertexCount, u32 triangleCount, then
 * vertexCount×3 float32 positions (mm) and triangleCount×3 uint32 indices.
 */
export interface ViewerMesh {
  readonly positions: Float32Array;
  readonly indices: Uint32Array;
}

const HEADER_BYTES = 8;

export function parseViewerMesh(buffer: ArrayBuffer): ViewerMesh {
  if (buffer.byteLength < HEADER_BYTES) throw new Error('The model preview is empty.');
  const header = new DataView(buffer);
  const vertexCount = header.getUint32(0, true);
  const triangleCount = header.getUint32(4, true);
  const expected = HEADER_BYTES + vertexCount * 12 + triangleCount * 12;
  if (buffer.byteLength !== expected) {
    throw new Error(`The model preview is damaged (${buffer.byteLength} bytes, expected ${expected}).`);
  }
  // Both arrays start 4-byte aligned, and every browser platform is little-endian, so the
  // bytes are used as they are (copied out of the response buffer by slice).
  const positions = new Float32Array(buffer.slice(HEADER_BYTES, HEADER_BYTES + vertexCount * 12));
  const indices = new Uint32Array(buffer.slice(HEADER_BYTES + vertexCount * 12));
  for (const index of indices) {
    if (index >= vertexCount)
      throw new Error('The model preview is damaged (an index points past the vertices).');
  }
  return { positions, indices };
}

/** Positions of just the given triangles, three vertices each (for the red problem overlay). */
export function trianglePositions(mesh: ViewerMesh, triangles: readonly number[]): Float32Array {
  const triangleCount = mesh.indices.length / 3;
  const valid = triangles.filter((t) => Number.isInteger(t) && t >= 0 && t < triangleCount);
  const out = new Float32Array(valid.length * 9);
  valid.forEach((triangle, n) => {
    for (let corner = 0; corner < 3; corner += 1) {
      const vertex = mesh.indices[triangle * 3 + corner] ?? 0;
      out[n * 9 + corner * 3] = mesh.positions[vertex * 3] ?? 0;
      out[n * 9 + corner * 3 + 1] = mesh.positions[vertex * 3 + 1] ?? 0;
      out[n * 9 + corner * 3 + 2] = mesh.positions[vertex * 3 + 2] ?? 0;
    }
  });
  return out;
}
