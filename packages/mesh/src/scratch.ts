/**
 * One reusable scratch buffer for the big temporaries of an analysis (the weld's hash table,
 * then the topology's half-edge buckets).
 *
 * - Reused: a fresh 32 MB array costs ~8,000 page faults, which on this kind of machine is
 *   15–60 ms, more than the work done in it; a process that analyses file after file (the
 *   server's model worker, the CLI over a catalogue) pays that once.
 * - Page-aligned: it is a WebAssembly.Memory (used only as memory, no wasm code runs), whose
 *   buffer starts on a page boundary, so the weld's 64-byte buckets sit exactly on cache lines.
 *   A plain ArrayBuffer from malloc starts 16 bytes into a line, which makes every bucket span
 *   two lines (measured: the weld's probe phase 50 → 80 ms).
 *
 * A lease is exclusive: while one is out, `leaseScratch` hands out fresh memory instead, so
 * two users can never share a buffer. The buffer is dropped after a quiet spell, so an idle
 * server does not keep the largest model's tables.
 */
// The engine's lib is ES only (no DOM); WebAssembly is a global in Node and browsers alike.
declare const WebAssembly: { Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer } };

const IDLE_MS = 30_000;
const WASM_PAGE = 65_536;

let pooled: ArrayBuffer | null = null;
let leased = false;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

export interface ScratchLease {
  /** At least the bytes asked for; contents are whatever the last user left. */
  readonly buffer: ArrayBuffer;
  release(): void;
}

function alignedBuffer(bytes: number): ArrayBuffer {
  try {
    return new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / WASM_PAGE)) }).buffer;
  } catch {
    return new ArrayBuffer(bytes); // no WebAssembly (e.g. node --jitless): slower, still correct
  }
}

export function leaseScratch(bytes: number): ScratchLease {
  if (leased) return { buffer: alignedBuffer(bytes), release() {} };
  leased = true;
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  if (!pooled || pooled.byteLength < bytes) {
    pooled = null; // let the old one go before the larger one is allocated
    pooled = alignedBuffer(bytes);
  }
  const buffer = pooled;
  let released = false;
  return {
    buffer,
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
