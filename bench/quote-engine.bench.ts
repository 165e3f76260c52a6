/**
 * Quote-engine benchmark: accuracy against REFERENCE.tsv and speed against three.js's
 * loaders, in one run, then the targets (PASS/FAIL).
 * `npx node --expose-gc bench/quote-engine.bench.ts [--three-cap S] [--targets-only]`
 * Each measurement of a file runs in a fresh child process so peak RSS belongs to it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { BufferGeometry, Matrix4, Mesh } from 'three';

const MODELS = process.env.MODELS_DIR ?? '/work/shared/models';
const SELF = fileURLToPath(import.meta.url);
const args = process.argv.slice(2);

interface OursResult {
  ok: boolean;
  error?: string;
  code?: string;
  format?: string;
  triangles?: number;
  volume?: number;
  grams?: number;
  seconds?: number;
  analyzeMs?: number;
  estimateMs?: number;
  baseRssMb?: number;
  peakRssMb?: number;
}
interface ThreeResult {
  ok: boolean;
  error?: string;
  triangles?: number;
  volume?: number;
  ms?: number;
}

function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

async function childOurs(file: string, scale: number, runs: number): Promise<void> {
  const { analyzeModel, estimatePrint } = await import('../packages/mesh/src/index.ts');
  const bytes = readFileSync(file);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const base = process.memoryUsage().rss / 1048576;
  const out: OursResult = { ok: false, baseRssMb: base };
  try {
    let best = Infinity, bestE = Infinity;
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      const a = await analyzeModel(bytes, { fileName: file, scale });
      const t1 = performance.now();
      const e = estimatePrint(a);
      const t2 = performance.now();
      best = Math.min(best, t1 - t0);
      bestE = Math.min(bestE, t2 - t1);
      Object.assign(out, { ok: true, format: a.format, triangles: a.triangleCount, volume: a.volumeMm3, grams: e.grams, seconds: e.printSeconds });
      if (r === 0) out.peakRssMb = peakRssMb();
    }
    out.analyzeMs = best;
    out.estimateMs = bestE;
  } catch (e) {
    const err = e as { code?: string; message?: string };
    out.error = err.message;
    out.code = err.code;
  }
  process.stdout.write(JSON.stringify(out));
}

async function childThree(file: string): Promise<void> {
  const out: ThreeResult = { ok: false };
  try {
    const bytes = readFileSync(file);
    const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const ext = file.toLowerCase().split('.').pop();
    const THREE = await import('three');
    let geometries: { geo: BufferGeometry; matrix: Matrix4 }[] = [];
    const t0 = performance.now();
    if (ext === 'stl') {
      const { STLLoader } = await import('three/examples/jsm/loaders/STLLoader.js');
      geometries = [{ geo: new STLLoader().parse(buf), matrix: new THREE.Matrix4() }];
    } else if (ext === 'obj') {
      const { OBJLoader } = await import('three/examples/jsm/loaders/OBJLoader.js');
      const group = new OBJLoader().parse(new TextDecoder().decode(bytes));
      group.updateMatrixWorld(true);
      group.traverse((o) => {
        const m = o as Mesh;
        if (m.isMesh) geometries.push({ geo: m.geometry, matrix: m.matrixWorld });
      });
    } else {
      const { DOMParserShim } = await import('./dom-shim.ts');
      (globalThis as Record<string, unknown>).DOMParser = DOMParserShim;
      const { ThreeMFLoader } = await import('three/examples/jsm/loaders/3MFLoader.js');
      const group = new ThreeMFLoader().parse(buf);
      group.updateMatrixWorld(true);
      group.traverse((o) => {
        const m = o as Mesh;
        if (m.isMesh) geometries.push({ geo: m.geometry, matrix: m.matrixWorld });
      });
    }
    // Signed-tetrahedron volume over what the loader returned, in the same run.
    let vol6 = 0;
    let tris = 0;
    const a = new THREE.Vector3(), b = new THREE.Vector3(), c = new THREE.Vector3();
    for (const { geo, matrix } of geometries) {
      const pos = geo.getAttribute('position');
      const index = geo.getIndex();
      const n = index ? index.count : pos.count;
      for (let i = 0; i + 2 < n; i += 3) {
        const ia = index ? index.getX(i) : i, ib = index ? index.getX(i + 1) : i + 1, ic = index ? index.getX(i + 2) : i + 2;
        a.fromBufferAttribute(pos, ia).applyMatrix4(matrix);
        b.fromBufferAttribute(pos, ib).applyMatrix4(matrix);
        c.fromBufferAttribute(pos, ic).applyMatrix4(matrix);
        vol6 += a.dot(b.cross(c));
        tris++;
      }
    }
    out.ms = performance.now() - t0;
    out.ok = true;
    out.triangles = tris;
    out.volume = vol6 / 6;
  } catch (e) {
    out.error = (e as Error).message;
  }
  process.stdout.write(JSON.stringify(out));
}

function runChild<T>(childArgs: string[], timeoutMs: number): T | { ok: false; error: string } {
  const r = spawnSync(process.execPath, ['--expose-gc', SELF, ...childArgs], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 1 << 24 });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') return { ok: false, error: 'timeout' };
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    return { ok: false, error: (r.stderr || r.error?.message || `exit ${r.status}`).split('\n').find((l) => l.trim()) ?? 'crashed' };
  }
}

const pct = (ours: number, ref: number) => ((ours - ref) / ref) * 100;
function quantile(xs: number[], q: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}
const f = (v: number | undefined, d = 1) => (v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(d));

async function orchestrate(): Promise<void> {
  const capIdx = args.indexOf('--three-cap');
  const threeCapS = capIdx >= 0 ? Number(args[capIdx + 1]) : 60;
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const rows = readFileSync(join(MODELS, 'REFERENCE.tsv'), 'utf8').trim().split('\n');
  const header = rows.shift()!.split('\t');
  const col = (name: string) => header.indexOf(name);
  const refs = rows.map((l) => l.split('\t'));
  console.log(`# Quote engine benchmark  (node ${process.version}, ${new Date().toISOString()})`);
  console.log(`models: ${MODELS}; best of ${runs} runs per file; three.js cap ${threeCapS}s per file\n`);

  console.log('## Accuracy vs REFERENCE.tsv (PrusaSlicer 2.5 rows with >= 0.1 g for grams/time)\n');
  console.log(['model', 'scale', 'tris', 'vol err %', 'grams', 'ref g', 'g err %', 'time s', 'ref s', 't err %'].join('\t'));
  const volErr: number[] = [], gErr: number[] = [], tErr: number[] = [];
  let triMismatch = 0;
  for (const r of refs) {
    const model = r[col('model')]!, scale = Number(r[col('scale')]);
    const res = runChild<OursResult>(['--child', 'ours', join(MODELS, model), String(scale), '1'], 120_000);
    if (!res.ok) {
      console.log([model, scale, 'rejected: ' + ('code' in res && res.code ? res.code : '') + ' ' + (res.error ?? '')].join('\t'));
      continue;
    }
    const o = res as OursResult;
    const refTris = Number(r[col('triangles')]);
    if (o.triangles !== refTris) triMismatch++;
    const refVol = Number(r[col('mesh_volume_mm3')]);
    const ve = pct(o.volume!, refVol);
    volErr.push(Math.abs(ve));
    const refG = Number(r[col('prusa_filament_g')]);
    const refT = Number(r[col('prusa_time_s')]);
    let ge: number | undefined, te: number | undefined;
    if (refG >= 0.1) {
      ge = pct(o.grams!, refG);
      te = pct(o.seconds!, refT);
      gErr.push(Math.abs(ge));
      tErr.push(Math.abs(te));
    }
    console.log([model, scale, o.triangles === refTris ? o.triangles : `${o.triangles}!=${refTris}`, f(ve, 4), f(o.grams, 2), refG >= 0.1 ? refG : '-', f(ge), f(o.seconds, 0), refG >= 0.1 ? refT : '-', f(te)].join('\t'));
  }
  console.log(`\nvolume |err|: median ${f(quantile(volErr, 0.5), 4)} %, max ${f(Math.max(...volErr), 4)} % over ${volErr.length} rows; triangle mismatches: ${triMismatch}`);
  console.log(`grams |err|: median ${f(quantile(gErr, 0.5))} %, p90 ${f(quantile(gErr, 0.9))} % (n=${gErr.length}; target <= 5 / 15)`);
  console.log(`time  |err|: median ${f(quantile(tErr, 0.5))} %, p90 ${f(quantile(tErr, 0.9))} % (n=${tErr.length}; target <= 15)\n`);

  console.log('## Speed: ours vs three.js loaders + signed volume (same run, same files)\n');
  console.log(['file', 'MB', 'tris', 'analyse ms', 'MB/s', 'estimate ms', 'peak RSS MB', 'RSS growth MB', 'three ms', 'three tris', 'three vol', 'ours/three'].join('\t'));
  const files = readdirSync(MODELS).filter((x) => /\.(stl|obj|3mf)$/i.test(x)).sort();
  const ratios: number[] = [];
  for (const file of files) {
    const path = join(MODELS, file);
    const mb = statSync(path).size / 1048576;
    const o = runChild<OursResult>(['--child', 'ours', path, '1', String(runs)], 300_000) as OursResult;
    const t = runChild<ThreeResult>(['--child', 'three', path], threeCapS * 1000) as ThreeResult;
    const ratio = o.ok && t.ok ? o.analyzeMs! / t.ms! : NaN;
    if (Number.isFinite(ratio)) ratios.push(ratio);
    console.log(
      [
        file,
        f(mb, 2),
        o.ok ? o.triangles : `rejected (${o.code})`,
        f(o.analyzeMs),
        o.ok ? f(mb / (o.analyzeMs! / 1000), 0) : '-',
        f(o.estimateMs),
        f(o.peakRssMb, 0),
        o.ok ? f(o.peakRssMb! - o.baseRssMb!, 0) : '-',
        t.ok ? f(t.ms) : t.error,
        t.ok ? t.triangles : '-',
        t.ok ? f(t.volume, 2) : '-',
        f(ratio, 3),
      ].join('\t'),
    );
  }
  console.log(`\nours/three.js analyse-time ratio: median ${f(quantile(ratios, 0.5), 3)}, geometric mean ${f(Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length), 3)} (n=${ratios.length}; < 1 means we are faster)`);
  console.log('three.js times cover parse + signed volume; ours covers parse + weld + topology + printability.');
  await targets();
}

// ---------------------------------------------------------------------------------------
// Targets (issue): the 1.28M-triangle STL analysed in <= 150 ms and estimated in <= 1 s, peak
// memory <= 2x the file, 3MF and OBJ of the same triangles within 3x of the STL.

interface TargetResult {
  ok: boolean;
  error?: string;
  fileMb?: number;
  triangles?: number;
  analyzeMs?: number[];
  estimateMs?: number[];
  rssGrowthMb?: number;
}
interface FormatsResult {
  ok: boolean;
  error?: string;
  triangles?: number;
  ms?: Record<string, number[]>;
  mb?: Record<string, number>;
}

/** One fresh process: peak RSS growth of the first analyse + estimate, then timed repetitions. */
async function childTarget(file: string, runs: number): Promise<void> {
  const { analyzeModel, estimatePrint } = await import('../packages/mesh/src/index.ts');
  const out: TargetResult = { ok: false };
  try {
    const bytes = readFileSync(file);
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    // The child has done nothing but load modules and read the file: everything the first
    // analyse + estimate adds to the peak is their working memory.
    const base = process.memoryUsage().rss / 1048576;
    const first = await analyzeModel(bytes, { fileName: file });
    estimatePrint(first);
    out.rssGrowthMb = peakRssMb() - base;
    out.fileMb = bytes.length / 1048576;
    out.triangles = first.triangleCount;
    out.analyzeMs = [];
    out.estimateMs = [];
    for (let r = 0; r < runs; r++) {
      gc?.();
      const t0 = performance.now();
      const a = await analyzeModel(bytes, { fileName: file });
      const t1 = performance.now();
      estimatePrint(a);
      const t2 = performance.now();
      out.analyzeMs.push(t1 - t0);
      out.estimateMs.push(t2 - t1);
    }
    out.ok = true;
  } catch (e) {
    out.error = (e as Error).message;
  }
  process.stdout.write(JSON.stringify(out));
}

/** The same welded triangles written as binary STL, OBJ and 3MF, each analysed `runs` times (interleaved). */
async function childFormats(file: string, runs: number): Promise<void> {
  const { analyzeModel } = await import('../packages/mesh/src/index.ts');
  const { make3mf } = await import('../packages/mesh/src/testing/zip-writer.ts');
  const out: FormatsResult = { ok: false };
  try {
    const src = await analyzeModel(readFileSync(file), { fileName: file });
    const { positions: p, indices: idx } = src.mesh;
    const nt = idx.length / 3;
    // Binary STL (normals zero), OBJ and 3MF of exactly these float32 coordinates. Text is
    // written with the fewest digits that read back to the same float32 (<= 9, as float32
    // exporters write); "3mf-17" uses the float64 representation (up to 17 digits, as
    // exporters that print doubles write).
    const short = (v: number): string => {
      for (let k = 1; k < 9; k++) {
        const t = String(Number(v.toPrecision(k)));
        if (Math.fround(Number(t)) === v) return t;
      }
      return String(Number(v.toPrecision(9)));
    };
    const stl = new Uint8Array(84 + 50 * nt);
    const dv = new DataView(stl.buffer);
    dv.setUint32(80, nt, true);
    for (let t = 0; t < nt; t++) {
      for (let k = 0; k < 3; k++) {
        const v = idx[t * 3 + k]! * 3;
        for (let a = 0; a < 3; a++) dv.setFloat32(84 + 50 * t + 12 + k * 12 + a * 4, p[v + a]!, true);
      }
    }
    const vLines: string[] = [];
    const vXml: string[] = [];
    const vXml17: string[] = [];
    for (let v = 0; v < p.length; v += 3) {
      const x = short(p[v]!), y = short(p[v + 1]!), z = short(p[v + 2]!);
      vLines.push(`v ${x} ${y} ${z}`);
      vXml.push(`<vertex x="${x}" y="${y}" z="${z}"/>`);
      vXml17.push(`<vertex x="${p[v]}" y="${p[v + 1]}" z="${p[v + 2]}"/>`);
    }
    const fLines: string[] = [];
    const tXml: string[] = [];
    for (let t = 0; t < idx.length; t += 3) {
      fLines.push(`f ${idx[t]! + 1} ${idx[t + 1]! + 1} ${idx[t + 2]! + 1}`);
      tXml.push(`<triangle v1="${idx[t]}" v2="${idx[t + 1]}" v3="${idx[t + 2]}"/>`);
    }
    const obj = new TextEncoder().encode(vLines.join('\n') + '\n' + fLines.join('\n') + '\n');
    vLines.length = fLines.length = 0;
    const xmlOf = (verts: string[]): string =>
      '<?xml version="1.0" encoding="UTF-8"?>\n<model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">\n <resources>\n  <object id="1" type="model">\n   <mesh>\n    <vertices>\n     ' +
      verts.join('\n     ') +
      '\n    </vertices>\n    <triangles>\n     ' +
      tXml.join('\n     ') +
      '\n    </triangles>\n   </mesh>\n  </object>\n </resources>\n <build>\n  <item objectid="1"/>\n </build>\n</model>\n';
    const tmf = make3mf(xmlOf(vXml));
    const tmf17 = make3mf(xmlOf(vXml17));
    vXml.length = vXml17.length = tXml.length = 0;
    const inputs: Record<string, Uint8Array> = { stl, obj, '3mf': tmf, '3mf-17': tmf17 };
    out.ms = {};
    out.mb = {};
    for (const [k, v] of Object.entries(inputs)) {
      out.ms[k] = [];
      out.mb[k] = v.length / 1048576;
    }
    const gc = (globalThis as { gc?: () => void }).gc;
    for (let r = 0; r < runs; r++) {
      for (const [fmt, bytes] of Object.entries(inputs)) {
        gc?.();
        const t0 = performance.now();
        const a = await analyzeModel(bytes, { fileName: `x.${fmt.slice(0, 3)}` });
        out.ms[fmt]!.push(performance.now() - t0);
        if (a.triangleCount !== nt || Math.abs(a.volumeMm3 - src.volumeMm3) > 1e-9 * Math.abs(src.volumeMm3) + 1e-9) {
          throw new Error(`${fmt}: ${a.triangleCount} triangles, volume ${a.volumeMm3} (expected ${nt}, ${src.volumeMm3})`);
        }
      }
    }
    out.triangles = nt;
    out.ok = true;
  } catch (e) {
    out.error = (e as Error).message;
  }
  process.stdout.write(JSON.stringify(out));
}

async function targets(): Promise<void> {
  const big = join(MODELS, 'voron-thread_test-subdiv16.stl');
  const runs = Math.max(5, Number(process.env.TARGET_RUNS ?? 7));
  console.log('\n## Targets\n');
  console.log(`file: ${big}; ${runs} runs per measurement in a fresh process, min / median (the machine is shared: compare minima)\n`);
  const rows: string[][] = [];
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  const mm = (xs: number[]) => `${f(Math.min(...xs), 0)} / ${f(quantile(xs, 0.5), 0)}`;
  const t = runChild<TargetResult>(['--child', 'target', big, String(runs)], 600_000) as TargetResult;
  if (!t.ok) {
    console.log(`target run failed: ${t.error}`);
  } else {
    rows.push([`analyse ${t.triangles} triangles (parse+weld+topology+printability)`, '<= 150 ms', `${mm(t.analyzeMs!)} ms`, verdict(Math.min(...t.analyzeMs!) <= 150)]);
    rows.push(['estimatePrint on it', '<= 1000 ms', `${mm(t.estimateMs!)} ms`, verdict(Math.min(...t.estimateMs!) <= 1000)]);
    rows.push([
      'peak memory growth (first analyse + estimate, over the loaded file)',
      `<= 2x file (${f(2 * t.fileMb!, 0)} MB)`,
      `${f(t.rssGrowthMb, 0)} MB (${f(t.rssGrowthMb! / t.fileMb!, 2)}x)`,
      verdict(t.rssGrowthMb! <= 2 * t.fileMb!),
    ]);
  }
  const fr = runChild<FormatsResult>(['--child', 'formats', big, String(Math.max(5, Math.ceil(runs / 2)))], 900_000) as FormatsResult;
  if (!fr.ok) {
    console.log(`formats run failed: ${fr.error}`);
  } else {
    const stlMin = Math.min(...fr.ms!['stl']!);
    const stlMed = quantile(fr.ms!['stl']!, 0.5);
    rows.push([`analyse, same ${fr.triangles} triangles as binary STL (${f(fr.mb!['stl'], 0)} MB)`, 'reference', `${mm(fr.ms!['stl']!)} ms`, '']);
    const label: Record<string, string> = {
      '3mf': '3MF (coordinates in <= 9 digits)',
      obj: 'OBJ (coordinates in <= 9 digits)',
      '3mf-17': '3MF (coordinates in 17 digits)',
    };
    for (const fmt of ['3mf', 'obj', '3mf-17']) {
      const xs = fr.ms![fmt]!;
      const rMin = Math.min(...xs) / stlMin;
      const rMed = quantile(xs, 0.5) / stlMed;
      rows.push([`analyse, same triangles as ${label[fmt]} (${f(fr.mb![fmt], 0)} MB)`, '<= 3x STL', `${mm(xs)} ms = ${f(rMin, 2)}x / ${f(rMed, 2)}x`, verdict(rMin <= 3)]);
    }
  }
  console.log(['target', 'goal', 'measured (min / median)', 'result'].join('\t'));
  for (const r of rows) console.log(r.join('\t'));
}

if (args[0] === '--child') {
  if (args[1] === 'ours') await childOurs(args[2]!, Number(args[3] ?? 1), Number(args[4] ?? 1));
  else if (args[1] === 'target') await childTarget(args[2]!, Number(args[3] ?? 7));
  else if (args[1] === 'formats') await childFormats(args[2]!, Number(args[3] ?? 5));
  else await childThree(args[2]!);
} else if (args.includes('--targets-only')) {
  await targets();
} else {
  await orchestrate();
}
