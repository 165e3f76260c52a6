import { describe, expect, it } from 'vitest';
import { parseViewerMesh, trianglePositions } from './viewer-mesh.ts';

function encode(positions: number[], indices: number[]): ArrayBuffer {
  const buffer = new ArrayBuffer(8 + positions.length * 4 + indices.length * 4);
  const view = new DataView(buffer);
  view.setUint32(0, positions.length / 3, true);
  view.setUint32(4, indices.length / 3, true);
  positions.forEach((value, i) => view.setFloat32(8 + i * 4, value, true));
  indices.forEach((value, i) => view.setUint32(8 + positions.length * 4 + i * 4, value, true));
  return buffer;
}

const square = encode([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0], [0, 1, 2, 0, 2, 3]);

describe('parseViewerMesh', () => {
  it('reads vertices and triangles', () => {
    const mesh = parseViewerMesh(square);
    expect(Array.from(mesh.positions)).toEqual([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]);
    expect(Array.from(mesh.indices)).toEqual([0, 1, 2, 0, 2, 3]);
  });

  it('refuses truncated or out-of-range data', () => {
    expect(() => parseViewerMesh(new ArrayBuffer(4))).toThrow(/empty/);
    expect(() => parseViewerMesh(square.slice(0, square.byteLength - 4))).toThrow(/damaged/);
    expect(() => parseViewerMesh(encode([0, 0, 0], [0, 0, 1]))).toThrow(/past the vertices/);
  });

  it('extracts the positions of chosen triangles, ignoring bad indices', () => {
    const mesh = parseViewerMesh(square);
    expect(Array.from(trianglePositions(mesh, [1, 7, -1]))).toEqual([0, 0, 0, 1, 1, 0, 0, 1, 0]);
  });
});
