import { expect, it } from 'vitest';
import { analyzeModel } from '@layerline/mesh';
import { demoVaseStl } from './demo-model.ts';

it('generates a closed, printable vase', async () => {
  const analysis = await analyzeModel(new Uint8Array(demoVaseStl()), { fileName: 'vase.stl' });
  expect(analysis.printability.watertight).toBe(true);
  expect(analysis.printability.openEdges).toBe(0);
  expect(analysis.printability.inconsistentWindingEdges).toBe(0);
  expect(analysis.printability.fitsBuildVolume).toBe(true);
  expect(analysis.volumeMm3).toBeGreaterThan(50_000);
  expect(analysis.bbox.size[2]).toBeCloseTo(80, 3);
});
