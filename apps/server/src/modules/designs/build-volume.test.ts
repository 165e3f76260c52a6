import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { checkPrintable, type BuildVolume } from './build-volume.ts';

const FARM: BuildVolume[] = [[400, 400, 450]];

describe('what the farm can print (issue 10, finding 1)', () => {
  it('accepts a model that fits as laid or turned by 90°, and refuses one that fits no orientation', () => {
    expect(checkPrintable([[100, 100, 440]], FARM, [100, 100, 440])).toBeNull();
    // 440 mm long lying down: stood up it fits the 450 mm height.
    expect(checkPrintable([[440, 100, 100]], FARM, [440, 100, 100])).toBeNull();
    const refused = checkPrintable([[10, 0, 1_000_000]], FARM, [10, 0, 1_000_000]);
    expect(refused?.reason).toBe('it measures 10 × 0 × 1,000,000 mm, and the largest build volume of the print farm is 400 × 400 × 450 mm, in any orientation');
    expect(checkPrintable([[460, 460, 10]], FARM, [460, 460, 10])).not.toBeNull();
  });

  it('counts each object of a file at its smallest footprint that fits, against one bed', () => {
    const items = (n: number, size: [number, number, number]) => Array.from({ length: n }, () => size);
    expect(checkPrintable(items(1600, [10, 10, 100]), FARM, [500, 320, 100])).toBeNull(); // exactly the bed
    expect(checkPrintable(items(1601, [10, 10, 100]), FARM, [500, 330, 100])?.reason).toContain('need at least 160,100 mm² of bed together');
    // Lying flat would need 1,000 mm² each; standing up they need 100.
    expect(checkPrintable(items(1000, [100, 10, 10]), FARM, [400, 400, 10])).toBeNull();
  });

  it('accepts a model that fits any one of several printers', () => {
    const printers: BuildVolume[] = [[250, 210, 210], [180, 180, 600]];
    expect(checkPrintable([[20, 20, 550]], printers, [20, 20, 550])).toBeNull();
    expect(checkPrintable([[240, 200, 200]], printers, [240, 200, 200])).toBeNull();
    expect(checkPrintable([[240, 200, 550]], printers, [240, 200, 550])).not.toBeNull();
  });

  it('reads MAX_BUILD_VOLUME_MM and the pool budgets from the environment, with defaults', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).models).toMatchObject({ maxBuildVolumeMm: [400, 400, 450], jobCpuMs: 30_000, workerHeapMb: 1024, maxQueuedPerSeller: 20 });
    expect(loadConfig({ NODE_ENV: 'test', MAX_BUILD_VOLUME_MM: '250x210x210', MODEL_WORKERS: '3', MODEL_JOB_CPU_S: '5' }).models).toMatchObject({
      maxBuildVolumeMm: [250, 210, 210],
      workers: 3,
      jobCpuMs: 5000,
    });
    expect(() => loadConfig({ NODE_ENV: 'test', MAX_BUILD_VOLUME_MM: '400,400' })).toThrow(/MAX_BUILD_VOLUME_MM/);
  });
});
