import { KERNELS_WASM_BASE64 } from './kernels-wasm.ts';

/**
 * One reusable scratch memory for the big temporaries of an analysis (the weld's hash table,
 * then the topology's half-edge buckets), with the WebAssembly kernels (assembly/kernels.ts)
 * that work in it.
 *
 * - Reused: a fresh 32 MB array costs ~8,000 page faults, which on this kind of machine is
 *   15–60 ms, more than the work done in it; a process that analyses file after file (the
 *   server's model worker, the CLI over a catalogue) pays that once.
 * - Page-aligned: a WebAssembly.Memory starts on a page boundary, so the weld's 64-byte buckets
 *   sit exactly on cache lines. A plain ArrayBuffer from malloc starts 16 bytes into a line,
 *   which makes every bucket span two lines (measured: the weld's probe phase 50 → 80 ms).
 *
 * A lease is exclusive: while one is out, `leaseScratch` hands out a fresh memory (with its own
 * kernel instance) instead, so two users can never share one. The pooled memory is dropped after
 * a quiet spell, so an idle server does not keep the largest model's tables.
 */

// The engine's lib is ES only (no DOM); WebAssembly is a global in Node.
declare const WebAssembly: {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
};
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** The kernels' exports (see assembly/kernels.ts for what each does). */
export interface Kernels {
  weldStl(
    src: number,
    n: number,
    table: number,
    mask: number,
    nv: number,
    idx: number,
    newVerts: number,
    corners: number,
    sameCorner: number,
    hashes: number,
  ): number;
  weldVertices(keys: number, n: number, table: number, mask: number, nv: number, ids: number, newVerts: number, hashes: number): number;
  edgeTopology(indices: number, nh: number, vertexCount: number, offsets: number, parent: number, he: number, counts: number): number;
  flagTriangles(indices: number, nh: number, vertexCount: number, offsets: number, he: number, cursor: number, flags: number): void;
  triangleSums(corners: number, sameCorner: number, count: number, cosLimit: number, state: number, flags: number, deferred: number): number;
  gatherCorners(positions: number, indices: number, count: number, corners: number, sameCorner: number): void;
  readRun(triangles: boolean, start: number, end: number, out: number, max: number): number;
  readObjLines(
    start: number,
    end: number,
    final: boolean,
    nv: number,
    verts: number,
    maxVerts: number,
    indices: number,
    maxIndices: number,
    faces: number,
    maxFaces: number,
    maxTriangles: number,
  ): number;
  objCounts(which: number): number;
  runStop(): number;
  // The estimate's layers (assembly/layers.ts, driven by slicing/layer-classifier.ts).
  layerGrid(nx: number, ny: number, x0: number, y0: number, cell: number, perimBand: number, solidFrom: number, sf2: number, top: number, bottom: number, minArea: number): void;
  layerBuffers(
    below: number,
    belowRaw: number,
    prevClass: number,
    cls: number,
    core: number,
    label: number,
    rowCount: number,
    rowFill: number,
    xs: number,
    dirs: number,
    crossings: number,
    edtF: number,
    edtV: number,
    runs: number,
  ): void;
  clearWindow(mask: number, c0: number, c1: number, r0: number, r1: number): void;
  rasterizeLayer(segs: number, s0: number, s1: number, mask: number): number;
  distanceLayer(mask: number, d2: number, c0: number, c1: number, r0: number, r1: number): void;
  classifyLayer(mask: number, d2: number, above: number, next: number, first: boolean, c0: number, c1: number, r0: number, r1: number, out: number): void;
  rollLayer(mask: number, withClasses: boolean, c0: number, c1: number, r0: number, r1: number): void;
}

const IDLE_MS = 30_000;
const WASM_PAGE = 65_536;

let compiled: object | undefined;
let pooled: { memory: WasmMemory; kernels: Kernels } | null = null;
let leased = false;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

export interface ScratchLease {
  /** At least the bytes asked for; contents are whatever the last user left. */
  readonly buffer: ArrayBuffer;
  /** The kernels, working in `buffer` (their pointers are byte offsets into it). */
  readonly kernels: Kernels;
  release(): void;
}

function pagesFor(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / WASM_PAGE));
}

/** The kernels in a memory of their own (at least `bytes`), outside the pool. */
export function instantiateKernels(bytes: number): { memory: WasmMemory; kernels: Kernels } {
  compiled ??= new WebAssembly.Module(Buffer.from(KERNELS_WASM_BASE64, 'base64'));
  const memory = new WebAssembly.Memory({ initial: pagesFor(bytes) });
  const instance = new WebAssembly.Instance(compiled, {
    env: {
      memory,
      abort: () => {
        throw new Error('WebAssembly kernel aborted');
      },
    },
  });
  return { memory, kernels: instance.exports as unknown as Kernels };
}

export function leaseScratch(bytes: number): ScratchLease {
  if (leased) {
    const fresh = instantiateKernels(bytes);
    return { buffer: fresh.memory.buffer, kernels: fresh.kernels, release() {} };
  }
  leased = true;
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  if (!pooled) pooled = instantiateKernels(bytes);
  else if (pooled.memory.buffer.byteLength < bytes) pooled.memory.grow(pagesFor(bytes) - pooled.memory.buffer.byteLength / WASM_PAGE);
  const { memory, kernels } = pooled;
  let released = false;
  return {
    buffer: memory.buffer,
    kernels,
    release() {
      if (released) return;
      released = true;
      leased = false;
      idleTimer = setTimeout(() => {
        if (!leased) pooled = null;
      }, IDLE_MS);
      (idleTimer as { unref?: () => void }).unref?.();
    },
  };
}
