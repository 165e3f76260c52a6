/**
 * Issue 24, point 5: how long listing images take — the software rasteriser drawing four 2000 × 2000
 * views of real models, and sharp encoding them as PNGs — cold (the first model in a fresh process:
 * parsing and JIT warm-up included) and warm (the same model again, as the next render is). Each
 * row prints its time against the budget beside it (PASS/FAIL); ends with one JSON line.
 *   npm run bench:listing-images [-- --out DIR]   (--out writes the PNGs, to look at them)
 * Baseline (2 vCPU, shared): see docs/listing-images.md, "Speed".
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { analyzeModel } from '@layerline/mesh';
import { LISTING_IMAGE_ANGLES, LISTING_IMAGE_SIZE_PX } from '@layerline/contracts';
import { colourOf } from '../apps/server/src/modules/designs/listing-render.ts';
import { listingViewsOf } from '../apps/server/src/modules/designs/model-work.ts';
import { LISTING_VIEWS } from '../apps/server/src/modules/listing-images/listing-image-service.ts';

const MODELS = new URL('../../shared/models/', import.meta.url);
const outIndex = process.argv.indexOf('--out');
const outDir = outIndex > 0 ? process.argv[outIndex + 1] : undefined;
const size = LISTING_IMAGE_SIZE_PX;
const views = LISTING_IMAGE_ANGLES.map((angle) => LISTING_VIEWS[angle]);

/** Budgets for the four images of one model, warm: render and encode (ms). */
const MODELS_UNDER_TEST = [
  { file: 'ps-20mm_cube.obj', colour: '#f97316', budgetMs: 2500 },
  { file: '3dbenchy.3mf', colour: '#2563eb', budgetMs: 4000 },
  { file: 'stanford-bunny.obj', colour: '#9ca3af', budgetMs: 4000 },
  { file: 'cura-ultimaker_robot_support.stl', colour: '#16a34a', budgetMs: 6000 },
];

const rows: { model: string; triangles: number; run: 'cold' | 'warm'; renderMs: number; encodeMs: number; totalMs: number; budgetMs: number; pass: boolean }[] = [];

async function once(file: string, colour: string, run: 'cold' | 'warm', budgetMs: number): Promise<void> {
  const bytes = new Uint8Array(await readFile(new URL(file, MODELS)));
  const analysis = await analyzeModel(bytes, { fileName: file });
  const start = performance.now();
  const pixels = listingViewsOf(analysis, views, { sizePx: size, colour: colourOf(colour) });
  const rendered = performance.now();
  const frame = size * size * 3;
  const pngs = await Promise.all(
    LISTING_IMAGE_ANGLES.map((_, i) => sharp(pixels.subarray(i * frame, (i + 1) * frame), { raw: { width: size, height: size, channels: 3 } }).png({ compressionLevel: 6 }).toBuffer()),
  );
  const encoded = performance.now();
  if (outDir && run === 'warm') {
    await mkdir(outDir, { recursive: true });
    await Promise.all(pngs.map((png, i) => writeFile(path.join(outDir, `${path.parse(file).name}-${LISTING_IMAGE_ANGLES[i]}.png`), png)));
  }
  const row = {
    model: file,
    triangles: analysis.triangleCount,
    run,
    renderMs: Math.round(rendered - start),
    encodeMs: Math.round(encoded - rendered),
    totalMs: Math.round(encoded - start),
    budgetMs: run === 'cold' ? budgetMs * 2 : budgetMs,
    pass: false,
  };
  row.pass = row.totalMs <= row.budgetMs;
  rows.push(row);
  console.log(
    `${row.pass ? 'PASS' : 'FAIL'}  ${run.padEnd(4)}  ${file.padEnd(34)} ${String(row.triangles).padStart(8)} triangles  render ${String(row.renderMs).padStart(5)} ms  encode ${String(row.encodeMs).padStart(5)} ms  total ${String(row.totalMs).padStart(5)} ms  (budget ${row.budgetMs} ms)`,
  );
}

console.log(`Listing images: ${views.length} views of ${size} × ${size} px per model (render = rasterise, encode = sharp PNG)`);
for (const [i, model] of MODELS_UNDER_TEST.entries()) {
  // Cold only for the first model: the process's first render pays for the JIT and sharp's start.
  if (i === 0) await once(model.file, model.colour, 'cold', model.budgetMs);
  await once(model.file, model.colour, 'warm', model.budgetMs);
}
console.log(JSON.stringify({ bench: 'listing-images', sizePx: size, views: views.length, rows }));
if (rows.some((row) => !row.pass)) process.exitCode = 1;
