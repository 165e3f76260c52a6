import { decimal17ToDouble } from './numbers.ts';
import { instantiateKernels, type Kernels, type WasmMemory } from './scratch.ts';

/**
 * Fast path for the bulk of a 3MF model part: runs of `<vertex x=".." y=".." z=".."/>` and
 * `<triangle v1=".." v2=".." v3=".."/>` elements are read straight from the inflated bytes;
 * every other byte still goes through saxes, which keeps validating the document's
 * structure, refusing DOCTYPEs and entities, and bounding the depth.
 *
 * Safety argument:
 * - A light lexer tracks where markup starts and ends (text, tags with quoted attribute
 *   values, comments, CDATA, processing instructions), with the same terminators saxes
 *   uses, so a candidate element is only ever taken where saxes would see an element.
 *   `<!` that is not a comment or CDATA (a DOCTYPE, say) turns the fast path off for the
 *   rest of the part: saxes then sees everything and refuses it as before.
 * - Before a candidate is examined, everything before it has been written to saxes, so
 *   the parser state the caller consults (are we inside an object's mesh?) is current.
 * - A candidate is taken only when it is exactly well formed in a narrow grammar (ASCII
 *   names, `name="value"` with whitespace between attributes, `/>`, no `&`, `<` or control
 *   bytes, no duplicate attributes, numbers that convert exactly), and only the elements
 *   the caller would treat identically. Anything else — including a candidate longer than
 *   MAX_ELEMENT bytes — is declined and handed to saxes unchanged, so the slow path
 *   decides (and words any error) exactly as it did before.
 * - Whitespace between taken elements is dropped; it is ignorable content text.
 */

const MAX_ELEMENT = 512;
/** Bytes of the next chunk joined to a carried element (more than MAX_ELEMENT). */
const HEAD = 2048;
const NEED = -1;
const DECLINE = 0;

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Elements per call of the WebAssembly run reader (readRun in assembly/kernels.ts), and its
 * memory's layout: the elements' numbers first (three f64 a
 * vertex, three i32 a triangle), then the rest of the buffer being read.
 */
const RUN = 4096;
const RUN_IN = RUN * 24;
const WASM_PAGE = 65_536;

// Lexer states.
const TEXT = 0;
const TAG = 1;
const COMMENT = 2;
const CDATA = 3;
const PI = 4;

export interface FastSink {
  /** True when a `<vertex>` here would be appended to the current mesh by the slow path. */
  acceptsVertex(): boolean;
  /** True when a `<triangle>` here would be appended to the current mesh by the slow path. */
  acceptsTriangle(): boolean;
  vertex(x: number, y: number, z: number): void;
  /** Indices as written (non-negative integers); the sink validates them like the slow path. */
  triangle(v1: number, v2: number, v3: number): void;
  /** Passes bytes on to saxes (they end at a character boundary or at a chunk end). */
  pass(bytes: Uint8Array): void;
}

/** ASCII text of b[s, e) (the caller has checked every byte is a digit, sign, dot or e). */
function latin1(b: Uint8Array, s: number, e: number): string {
  return Buffer.prototype.latin1Slice.call(b, s, e) as string;
}

function isWs(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

export class FastModelFilter {
  private lex: number = TEXT;
  private quote = 0;
  /** Terminator characters matched so far at the end of the previous chunk (comment, CDATA, PI). */
  private tail = 0;
  private carry: Uint8Array | null = null;
  private enabled = true;
  /**
   * The numbers of the element being read: x/v1, y/v2, z/v3 and the last number parsed. A typed
   * array, not fields: a field that holds both integers and fractions stores every fraction as a
   * new heap number, and that garbage was a tenth of the time on a large model.
   */
  private readonly num = new Float64Array(4);
  taken = 0;
  /** The run reader, with a memory of its own; created at the first vertex. */
  private runReader: { memory: WasmMemory; kernels: Kernels } | null = null;
  /** The buffer whose bytes from `copiedFrom` on are in the run reader's memory. */
  private copied: Uint8Array | null = null;
  private copiedFrom = 0;

  private readonly sink: FastSink;

  constructor(sink: FastSink) {
    this.sink = sink;
  }

  write(chunk: Uint8Array): void {
    this.feed(chunk, false);
  }

  end(): void {
    this.feed(new Uint8Array(0), true);
  }

  private feed(chunk: Uint8Array, final: boolean): void {
    const carry = this.carry;
    this.carry = null;
    if (carry && (final || chunk.length <= HEAD || !this.enabled)) {
      const buf = new Uint8Array(carry.length + chunk.length);
      buf.set(carry);
      buf.set(chunk, carry.length);
      this.scan(buf, 0, buf.length, final, true);
      return;
    }
    let start = 0;
    if (carry) {
      // Finish the element cut by the chunk boundary on a small joined head rather than
      // copying the whole chunk; then go on in the chunk where that left off.
      const head = new Uint8Array(carry.length + HEAD);
      head.set(carry);
      head.set(chunk.subarray(0, HEAD), carry.length);
      start = this.scan(head, 0, carry.length, false, false) - carry.length;
    }
    this.scan(chunk, start, chunk.length, final, true);
  }

  /**
   * Lexes buf from i until at least `stop` (buf continues to buf.length), passing what it
   * does not take to saxes; returns where it stopped. With `mayCarry` false (a joined head)
   * an element that does not end within buf is declined to saxes instead of carried.
   */
  private scan(buf: Uint8Array, i: number, stop: number, final: boolean, mayCarry: boolean): number {
    const n = buf.length;
    const sink = this.sink;
    if (!this.enabled) {
      if (i < n) sink.pass(buf.subarray(i));
      return n;
    }
    let pass = i;
    while (i < stop) {
      const lex = this.lex;
      if (lex === TEXT) {
        const lt = buf[i] === 60 ? i : buf.indexOf(60, i);
        if (lt < 0) {
          i = n;
          break;
        }
        i = lt;
        if (n - i < 9 && !final && mayCarry) {
          // Too short to classify: keep it for the next chunk.
          this.carry = buf.slice(i);
          break;
        }
        const c1 = buf[i + 1];
        if (c1 === 33 /* ! */) {
          if (buf[i + 2] === 45 && buf[i + 3] === 45) {
            this.lex = COMMENT;
            this.tail = 0;
            i += 4;
          } else if (buf[i + 2] === 91 && buf[i + 3] === 67 && buf[i + 4] === 68 && buf[i + 5] === 65 && buf[i + 6] === 84 && buf[i + 7] === 65 && buf[i + 8] === 91) {
            this.lex = CDATA;
            this.tail = 0;
            i += 9;
          } else {
            // DOCTYPE or anything else unusual: saxes gets the rest as it is.
            this.enabled = false;
            sink.pass(buf.subarray(pass));
            return n;
          }
          continue;
        }
        if (c1 === 63 /* ? */) {
          this.lex = PI;
          this.tail = 0;
          i += 2;
          continue;
        }
        if (c1 === 118 /* v */ || c1 === 116 /* t */) {
          if (pass < i) {
            sink.pass(buf.subarray(pass, i));
            pass = i;
          }
          const isVertex = c1 === 118;
          const ok = isVertex ? sink.acceptsVertex() : sink.acceptsTriangle();
          if (ok && mayCarry) {
            const next = this.readRun(buf, i, n, isVertex);
            if (next > i) {
              i = next;
              pass = i;
              continue;
            }
          }
          if (ok) {
            const r = isVertex ? this.readVertex(buf, i, n) : this.readTriangle(buf, i, n);
            if (r > 0) {
              const num = this.num;
              if (isVertex) sink.vertex(num[0]!, num[1]!, num[2]!);
              else sink.triangle(num[0]!, num[1]!, num[2]!);
              this.taken++;
              i = r;
              while (i < n && isWs(buf[i]!)) i++;
              pass = i;
              continue;
            }
            if (r === NEED && !final && mayCarry) {
              this.carry = buf.slice(i);
              break;
            }
          }
        }
        this.lex = TAG;
        this.quote = 0;
        i += 1;
        continue;
      }
      if (lex === TAG) {
        let q = this.quote;
        for (; i < n; i++) {
          const c = buf[i]!;
          if (q) {
            if (c === q) q = 0;
          } else if (c === 34 || c === 39) q = c;
          else if (c === 62) {
            this.lex = TEXT;
            i++;
            break;
          }
        }
        this.quote = q;
        continue;
      }
      // Comment "-->", CDATA "]]>", PI "?>": find '>' and look at what precedes it.
      const mark = lex === COMMENT ? 45 : lex === CDATA ? 93 : 63;
      const need = lex === PI ? 1 : 2;
      const gt = buf.indexOf(62, i);
      if (gt < 0) {
        let k = n;
        while (k > i && buf[k - 1] === mark && n - k < need) k--;
        this.tail = k === i ? Math.min(need, this.tail + (n - k)) : n - k;
        i = n;
        break;
      }
      let k = gt;
      while (k > i && buf[k - 1] === mark && gt - k < need) k--;
      let run = gt - k;
      if (k === i) run = Math.min(need, run + this.tail);
      this.tail = 0;
      i = gt + 1;
      if (run >= need) this.lex = TEXT;
    }
    const end = this.carry ? n - this.carry.length : i < n ? i : n;
    if (pass < end) sink.pass(buf.subarray(pass, end));
    return end;
  }

  /**
   * Takes the run of vertex (or triangle) elements at i with the WebAssembly readers, which
   * read them as readVertex (readTriangle) would: they decline what they cannot take, and the
   * JavaScript reader then decides. Returns where the run stopped, i when it took none. The
   * buffer's rest is copied into the readers' memory once.
   */
  private readRun(buf: Uint8Array, i: number, n: number, isVertex: boolean): number {
    if (this.copied !== buf || i < this.copiedFrom) {
      const need = RUN_IN + (n - i);
      if (!this.runReader) this.runReader = instantiateKernels(need);
      const memory = this.runReader.memory;
      if (memory.buffer.byteLength < need) memory.grow(Math.ceil((need - memory.buffer.byteLength) / WASM_PAGE));
      new Uint8Array(memory.buffer, RUN_IN, n - i).set(buf.subarray(i, n));
      this.copied = buf;
      this.copiedFrom = i;
    }
    const { memory, kernels } = this.runReader!;
    const sink = this.sink;
    const shift = RUN_IN - this.copiedFrom;
    let pos = i;
    for (;;) {
      let count: number;
      if (isVertex) {
        count = kernels.readRun(false, pos + shift, n + shift, 0, RUN);
        const xyz = new Float64Array(memory.buffer, 0, count * 3);
        for (let k = 0; k < count * 3; k += 3) sink.vertex(xyz[k]!, xyz[k + 1]!, xyz[k + 2]!);
      } else {
        count = kernels.readRun(true, pos + shift, n + shift, 0, RUN);
        const v = new Int32Array(memory.buffer, 0, count * 3);
        for (let k = 0; k < count * 3; k += 3) sink.triangle(v[k]!, v[k + 1]!, v[k + 2]!);
      }
      this.taken += count;
      pos = kernels.runStop() - shift;
      if (count < RUN) return pos;
    }
  }

  /** `<vertex x=".." y=".." z=".."/>` at i; returns the end, DECLINE or NEED. */
  private readVertex(b: Uint8Array, i: number, n: number): number {
    if (n - i < 7) return NEED;
    if (b[i + 2] !== 101 || b[i + 3] !== 114 || b[i + 4] !== 116 || b[i + 5] !== 101 || b[i + 6] !== 120) return DECLINE;
    let p = i + 7;
    let seen = 0;
    const limit = Math.min(n, i + MAX_ELEMENT);
    for (;;) {
      const ws0 = p;
      while (p < limit && isWs(b[p]!)) p++;
      if (p + 1 >= limit) return limit === n && n - i < MAX_ELEMENT ? NEED : DECLINE;
      const c = b[p]!;
      if (c === 47 /* / */) return b[p + 1] === 62 && seen === 7 ? p + 2 : DECLINE;
      if (p === ws0) return DECLINE; // attributes must be separated by whitespace
      const bit = c === 120 ? 1 : c === 121 ? 2 : c === 122 ? 4 : 0;
      if (bit === 0 || seen & bit || b[p + 1] !== 61) return DECLINE;
      if (p + 2 >= limit) return limit === n && n - i < MAX_ELEMENT ? NEED : DECLINE;
      const q = b[p + 2]!;
      if (q !== 34 && q !== 39) return DECLINE;
      const r = this.readNumber(b, p + 3, limit, q);
      if (r <= 0) return r === NEED && limit === n && n - i < MAX_ELEMENT ? NEED : DECLINE;
      this.num[bit === 4 ? 2 : bit - 1] = this.num[3]!;
      seen |= bit;
      p = r;
    }
  }

  /** `<triangle v1=".." v2=".." v3=".."/>` (pid/p1/p2/p3 allowed and ignored). */
  private readTriangle(b: Uint8Array, i: number, n: number): number {
    if (n - i < 9) return NEED;
    if (b[i + 2] !== 114 || b[i + 3] !== 105 || b[i + 4] !== 97 || b[i + 5] !== 110 || b[i + 6] !== 103 || b[i + 7] !== 108 || b[i + 8] !== 101) return DECLINE;
    let p = i + 9;
    let seen = 0;
    const limit = Math.min(n, i + MAX_ELEMENT);
    // What running out of bytes means: wait for the next chunk, or decline (too long).
    const more = limit === n && n - i < MAX_ELEMENT ? NEED : DECLINE;
    for (;;) {
      const ws0 = p;
      while (p < limit && isWs(b[p]!)) p++;
      if (p + 4 >= limit) return more;
      const c = b[p]!;
      if (c === 47) return b[p + 1] === 62 && (seen & 7) === 7 ? p + 2 : DECLINE;
      if (p === ws0) return DECLINE;
      // v1 v2 v3 p1 p2 p3 pid
      let bit = 0;
      let nameLen = 2;
      const c1 = b[p + 1]!;
      if (c === 118 && c1 >= 49 && c1 <= 51) bit = 1 << (c1 - 49);
      else if (c === 112 && c1 >= 49 && c1 <= 51) bit = 8 << (c1 - 49);
      else if (c === 112 && c1 === 105 && b[p + 2] === 100) {
        bit = 64;
        nameLen = 3;
      }
      if (bit === 0 || seen & bit) return DECLINE;
      p += nameLen;
      if (b[p] !== 61) return DECLINE;
      const q = b[p + 1]!;
      if (q !== 34 && q !== 39) return DECLINE;
      p += 2;
      if (bit <= 4) {
        let v = 0;
        const s = p;
        while (p < limit) {
          const d = b[p]! - 48;
          if (d < 0 || d > 9) break;
          v = v * 10 + d;
          p++;
        }
        if (p >= limit) return more;
        if (b[p] !== q || p === s || p - s > 9) return DECLINE;
        this.num[bit === 4 ? 2 : bit - 1] = v;
      } else {
        while (p < limit && b[p] !== q) {
          const c2 = b[p]!;
          if (c2 === 60 || c2 === 38 || c2 < 32) return DECLINE;
          p++;
        }
        if (p >= limit) return more;
      }
      seen |= bit;
      p++;
    }
  }

  /**
   * A decimal number ending at quote `q`; sets `num[3]` and returns the index after the quote.
   * The grammar is strict (sign, digits, fraction, exponent of at most 3 digits). Up to 15
   * significant digits with a power of ten within ±22 the value is one correctly rounded
   * operation; 16 or 17 (exporters that print doubles) go through decimal17ToDouble; longer
   * ones, and the rare near-tie, through `Number()` on the same text. Either way it is
   * bit-identical to what the slow path gets.
   */
  private readNumber(b: Uint8Array, p: number, limit: number, q: number): number {
    const start = p;
    let neg = false;
    let c = b[p];
    if (c === 45) {
      neg = true;
      p++;
    } else if (c === 43) p++;
    // The first 15 significant digits in mant (exact), the next two in tail.
    let mant = 0;
    let tail = 0;
    let sig = 0;
    let exp = 0;
    let any = false;
    while (p < limit) {
      const d = b[p]! - 48;
      if (d < 0 || d > 9) break;
      any = true;
      if (sig !== 0 || d !== 0) {
        sig++;
        if (sig <= 15) mant = mant * 10 + d;
        else tail = tail * 10 + d;
      }
      p++;
    }
    if (p < limit && b[p] === 46) {
      p++;
      while (p < limit) {
        const d = b[p]! - 48;
        if (d < 0 || d > 9) break;
        any = true;
        if (sig !== 0 || d !== 0) {
          sig++;
          if (sig <= 15) mant = mant * 10 + d;
          else tail = tail * 10 + d;
        }
        exp--;
        p++;
      }
    }
    if (p >= limit) return NEED;
    if (!any) return DECLINE;
    c = b[p];
    if (c === 101 || c === 69) {
      p++;
      let eneg = false;
      if (b[p] === 45) {
        eneg = true;
        p++;
      } else if (b[p] === 43) p++;
      let e = 0;
      const s = p;
      while (p < limit) {
        const d = b[p]! - 48;
        if (d < 0 || d > 9) break;
        e = e * 10 + d;
        p++;
      }
      if (p >= limit) return NEED;
      if (p === s || p - s > 3) return DECLINE;
      exp += eneg ? -e : e;
    }
    if (b[p] !== q) return DECLINE;
    let v: number;
    if (sig === 0) v = 0;
    else if (sig > 17 || exp > 22 || exp < -22) return this.readNumberText(b, start, p);
    else if (sig > 15) {
      v = decimal17ToDouble(mant, tail, sig - 15, exp);
      if (Number.isNaN(v)) return this.readNumberText(b, start, p);
    } else if (exp === 0) v = mant;
    else if (exp > 0) v = mant * POW10[exp]!;
    else v = mant / POW10[-exp]!;
    this.num[3] = neg ? -v : v;
    return p + 1;
  }

  /** The rare number the fast conversions cannot do exactly: Number() on its text, ending at `end`. */
  private readNumberText(b: Uint8Array, start: number, end: number): number {
    const v = Number(latin1(b, start, end));
    if (!Number.isFinite(v)) return DECLINE;
    this.num[3] = v;
    return end + 1;
  }
}
