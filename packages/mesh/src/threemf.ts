import { SaxesParser } from 'saxes';
import { MeshBuilder, type IndexedMesh } from './builder.ts';
import { MeshError } from './errors.ts';
import { MESH_LIMITS } from './limits.ts';
import { openSafeZip, type SafeZip } from './zip.ts';
import { FastModelFilter } from './xml-fast.ts';

const UNIT_MM: Record<string, number> = {
  micron: 0.001,
  millimeter: 1,
  centimeter: 10,
  inch: 25.4,
  foot: 304.8,
  meter: 1000,
};

/** Row-vector affine transform as 3MF writes it: m00 m01 m02 m10 m11 m12 m20 m21 m22 m30 m31 m32. */
type Mat = Float64Array;
const IDENTITY: Mat = Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0);

function parseTransform(s: string | undefined): Mat {
  if (s === undefined) return IDENTITY;
  const parts = s.trim().split(/\s+/);
  if (parts.length !== 12) throw new MeshError('malformed', '3MF: a transform needs 12 numbers.');
  const m = new Float64Array(12);
  for (let i = 0; i < 12; i++) {
    const v = Number(parts[i]);
    if (!Number.isFinite(v)) throw new MeshError('malformed', '3MF: a transform value is not a number.');
    m[i] = v;
  }
  return m;
}

/** Applies `a` first, then `b`. */
function compose(a: Mat, b: Mat): Mat {
  const r = new Float64Array(12);
  for (let row = 0; row < 4; row++) {
    for (let col = 0; col < 3; col++) {
      let v = row === 3 ? b[9 + col]! : 0;
      for (let k = 0; k < 3; k++) v += a[row * 3 + k]! * b[k * 3 + col]!;
      r[row * 3 + col] = v;
    }
  }
  return r;
}

interface Component {
  ref: string;
  transform: Mat;
}
interface ObjectDef {
  type: string;
  verts?: Float64Array;
  nv: number;
  tris?: Uint32Array;
  nt: number;
  components?: Component[];
}
interface Part {
  unit: number;
  objects: Map<string, ObjectDef>;
  items: Component[];
  refs: Set<string>;
}

function localName(n: string): string {
  const i = n.indexOf(':');
  return i < 0 ? n : n.slice(i + 1);
}
function pathAttr(attrs: Record<string, string>): string | undefined {
  for (const k in attrs) if (k === 'path' || k.endsWith(':path')) return attrs[k];
  return undefined;
}
function normPath(p: string): string {
  return p.replace(/^\//, '');
}

function addVertex(obj: ObjectDef, x: number, y: number, z: number): void {
  let v = obj.verts!;
  if ((obj.nv + 1) * 3 > v.length) {
    if (obj.nv >= MESH_LIMITS.maxVertices) throw new MeshError('too-many-triangles', `3MF: more than ${MESH_LIMITS.maxVertices} vertices.`);
    const n = new Float64Array(v.length * 2);
    n.set(v);
    obj.verts = v = n;
  }
  const o = obj.nv * 3;
  v[o] = x;
  v[o + 1] = y;
  v[o + 2] = z;
  obj.nv++;
}

function addTriangle(obj: ObjectDef, v1: number, v2: number, v3: number): void {
  const nv = obj.nv;
  if (!(Number.isInteger(v1) && Number.isInteger(v2) && Number.isInteger(v3) && v1 >= 0 && v2 >= 0 && v3 >= 0 && v1 < nv && v2 < nv && v3 < nv)) {
    throw new MeshError('malformed', '3MF: a triangle refers to a vertex that does not exist.');
  }
  let t = obj.tris!;
  if ((obj.nt + 1) * 3 > t.length) {
    if (obj.nt >= MESH_LIMITS.maxTriangles) throw new MeshError('too-many-triangles', `3MF: more than ${MESH_LIMITS.maxTriangles} triangles.`);
    const n = new Uint32Array(t.length * 2);
    n.set(t);
    obj.tris = t = n;
  }
  const o = obj.nt * 3;
  t[o] = v1;
  t[o + 1] = v2;
  t[o + 2] = v3;
  obj.nt++;
}

export interface Parse3mfOptions {
  /** Read vertex/triangle runs with the fast tokenizer (default); false sends every byte through saxes. */
  fastXml?: boolean;
}

/**
 * Streams one model part through saxes. A DOCTYPE is refused outright, so no entity
 * (internal or external) can ever be declared, let alone expanded (FILE-7).
 */
async function parsePart(zip: SafeZip, path: string, fastXml: boolean): Promise<Part> {
  const part: Part = { unit: 1, objects: new Map(), items: [], refs: new Set() };
  const parser = new SaxesParser({ xmlns: false, position: false });
  let depth = 0;
  let obj: ObjectDef | null = null;
  let objId = '';
  let inBuild = false;
  let sawModel = false;
  let error: MeshError | null = null;
  const idOf = (attrs: Record<string, string>, key: string): string => {
    const v = attrs[key];
    if (v === undefined || !/^\d+$/.test(v)) throw new MeshError('malformed', `3MF: missing or bad "${key}" attribute.`);
    return v;
  };
  const refOf = (attrs: Record<string, string>): string => {
    const p = pathAttr(attrs);
    const target = p ? normPath(p) : path;
    if (p) part.refs.add(target);
    return `${target}#${idOf(attrs, 'objectid')}`;
  };
  parser.on('doctype', () => {
    throw new MeshError('xml-entity', '3MF: the model XML declares a DOCTYPE; entities are not allowed.');
  });
  parser.on('opentag', (node) => {
    depth++;
    if (depth > MESH_LIMITS.maxXmlDepth) {
      throw new MeshError('xml-too-deep', `3MF: the model XML nests deeper than ${MESH_LIMITS.maxXmlDepth} levels.`);
    }
    const a = node.attributes as Record<string, string>;
    const name = localName(node.name);
    if (obj) {
      if (name === 'vertex') {
        const x = Number(a['x']), y = Number(a['y']), z = Number(a['z']);
        if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z) || a['x'] === undefined || a['y'] === undefined || a['z'] === undefined) {
          throw new MeshError('malformed', '3MF: a vertex needs numeric x, y and z.');
        }
        addVertex(obj, x, y, z);
        return;
      }
      if (name === 'triangle') {
        addTriangle(obj, Number(a['v1']), Number(a['v2']), Number(a['v3']));
        return;
      }
      if (name === 'mesh') {
        obj.verts = new Float64Array(3 * 1024);
        obj.tris = new Uint32Array(3 * 1024);
      } else if (name === 'component') {
        (obj.components ??= []).push({ ref: refOf(a), transform: parseTransform(a['transform']) });
      }
      return;
    }
    if (name === 'model') {
      sawModel = true;
      const u = a['unit'] ?? 'millimeter';
      const s = UNIT_MM[u];
      if (s === undefined) throw new MeshError('malformed', `3MF: unknown unit "${u.slice(0, 20)}".`);
      part.unit = s;
    } else if (name === 'object') {
      objId = `${path}#${idOf(a, 'id')}`;
      if (part.objects.has(objId)) throw new MeshError('malformed', '3MF: two objects share one id.');
      obj = { type: a['type'] ?? 'model', nv: 0, nt: 0 };
    } else if (name === 'build') {
      inBuild = true;
    } else if (name === 'item' && inBuild) {
      part.items.push({ ref: refOf(a), transform: parseTransform(a['transform']) });
    }
  });
  parser.on('closetag', (node) => {
    depth--;
    const name = localName(node.name);
    if (name === 'object' && obj) {
      part.objects.set(objId, obj);
      obj = null;
    } else if (name === 'build') inBuild = false;
  });
  parser.on('error', (e) => {
    if (e instanceof MeshError) throw e;
    const msg = e.message;
    if (/entity/i.test(msg)) throw new MeshError('xml-entity', `3MF: the model XML uses an entity (${msg.slice(0, 120)}).`);
    throw new MeshError('malformed', `3MF: the model XML is not well-formed (${msg.slice(0, 160)}).`);
  });
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const fast = fastXml
    ? new FastModelFilter({
        acceptsVertex: () => obj !== null && obj.verts !== undefined && depth < MESH_LIMITS.maxXmlDepth,
        acceptsTriangle: () => obj !== null && obj.tris !== undefined && depth < MESH_LIMITS.maxXmlDepth,
        vertex: (x, y, z) => addVertex(obj!, x, y, z),
        triangle: (v1, v2, v3) => addTriangle(obj!, v1, v2, v3),
        pass: (bytes) => {
          parser.write(decoder.decode(bytes, { stream: true }));
        },
      })
    : null;
  try {
    await zip.read(path, (chunk) => {
      if (fast) fast.write(chunk);
      else parser.write(decoder.decode(chunk, { stream: true }));
    });
    fast?.end();
    parser.write(decoder.decode());
    parser.close();
  } catch (e) {
    error = e instanceof MeshError ? e : new MeshError('malformed', `3MF: ${(e as Error).message}`);
  }
  if (error) throw error;
  if (!sawModel) throw new MeshError('malformed', `3MF: ${path} has no <model> element.`);
  return part;
}

function findRootModel(zip: SafeZip, rels: string | null): string {
  if (rels) {
    const m = /<Relationship\b[^>]*Type="[^"]*\/3dmodel"[^>]*>/i.exec(rels);
    const target = m ? /Target="([^"]+)"/.exec(m[0]) : null;
    if (target?.[1]) {
      const p = normPath(target[1]);
      if (zip.names.includes(p)) return p;
    }
  }
  const fallback = zip.names.find((n) => /^3D\/[^/]+\.model$/i.test(n));
  if (!fallback) throw new MeshError('malformed', '3MF: the archive has no 3D model part (3D/3dmodel.model).');
  return fallback;
}

async function readSmallText(zip: SafeZip, name: string): Promise<string | null> {
  if (!zip.names.includes(name)) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  await zip.read(name, (c) => {
    size += c.length;
    if (size > 1024 * 1024) throw new MeshError('malformed', `3MF: ${name} is implausibly large.`);
    chunks.push(c);
  });
  return Buffer.concat(chunks).toString('utf8');
}

export async function parse3mf(bytes: Uint8Array, opts: Parse3mfOptions = {}): Promise<IndexedMesh & { warnings: string[] }> {
  const zip = await openSafeZip(bytes);
  try {
    if (!zip.names.includes('[Content_Types].xml')) {
      throw new MeshError('malformed', '3MF: the archive has no [Content_Types].xml, so it is not a 3MF package.');
    }
    const root = findRootModel(zip, await readSmallText(zip, '_rels/.rels'));
    const parts = new Map<string, Part>();
    const queue = [root];
    while (queue.length) {
      const p = queue.shift()!;
      if (parts.has(p)) continue;
      if (parts.size >= 64) throw new MeshError('malformed', '3MF: too many model parts.');
      if (!zip.names.includes(p)) throw new MeshError('malformed', `3MF: a component refers to a missing part ${p}.`);
      const part = await parsePart(zip, p, opts.fastXml ?? true);
      parts.set(p, part);
      for (const r of part.refs) if (!parts.has(r)) queue.push(r);
    }
    return instantiate(parts, root);
  } finally {
    zip.close();
  }
}

/** Expands build items and components into one welded mesh, units applied. */
function instantiate(parts: Map<string, Part>, root: string): IndexedMesh & { warnings: string[] } {
  const objects = new Map<string, { def: ObjectDef; unit: number }>();
  for (const p of parts.values()) for (const [id, def] of p.objects) objects.set(id, { def, unit: p.unit });
  const rootPart = parts.get(root)!;
  const warnings: string[] = [];
  const get = (ref: string) => {
    const o = objects.get(ref);
    if (!o) throw new MeshError('malformed', `3MF: a build item or component refers to object ${ref.split('#')[1]}, which does not exist.`);
    return o;
  };
  // Counting first bounds the work: components can multiply triangles like entities multiply text.
  const counts = new Map<string, number>();
  const visiting = new Set<string>();
  const count = (ref: string, depth: number): number => {
    const memo = counts.get(ref);
    if (memo !== undefined) return memo;
    if (visiting.has(ref) || depth > MESH_LIMITS.maxComponentDepth) {
      throw new MeshError('malformed', '3MF: components form a cycle or nest too deeply.');
    }
    visiting.add(ref);
    const { def } = get(ref);
    let n = def.nt;
    for (const c of def.components ?? []) {
      if (get(c.ref).def.type === 'support') {
        if (!warnings.includes('support-component')) warnings.push('support-component');
      }
      n += count(c.ref, depth + 1);
      if (n > MESH_LIMITS.maxTriangles) break;
    }
    visiting.delete(ref);
    counts.set(ref, n);
    return n;
  };
  let total = 0;
  for (const item of rootPart.items) {
    total += count(item.ref, 0);
    if (total > MESH_LIMITS.maxTriangles) {
      throw new MeshError('too-many-triangles', `3MF: the build expands to more than ${MESH_LIMITS.maxTriangles} triangles.`);
    }
  }
  if (rootPart.items.length === 0) throw new MeshError('empty', '3MF: the build has no items.');
  if (total === 0) throw new MeshError('empty', '3MF: the build has no triangles.');

  const b = new MeshBuilder(total);
  try {
    const unit = rootPart.unit;
    const emit = (ref: string, m: Mat): void => {
      const { def, unit: u } = get(ref);
      // A part in other units is scaled into the root part's units before the item transform.
      const mm = u === unit ? m : compose(Float64Array.of(u / unit, 0, 0, 0, u / unit, 0, 0, 0, u / unit, 0, 0, 0), m);
      if (def.nt > 0) {
        const v = def.verts!;
        const t = def.tris!;
        // Only vertices a triangle uses enter the mesh (the builder's promise to the topology).
        const used = new Uint8Array(def.nv);
        for (let i = 0, e = def.nt * 3; i < e; i++) used[t[i]!] = 1;
        const f = new Float32Array(def.nv * 3);
        let nu = 0;
        for (let i = 0; i < def.nv; i++) {
          if (!used[i]) continue;
          const x = v[i * 3]!, y = v[i * 3 + 1]!, z = v[i * 3 + 2]!;
          f[nu * 3] = (x * mm[0]! + y * mm[3]! + z * mm[6]! + mm[9]!) * unit;
          f[nu * 3 + 1] = (x * mm[1]! + y * mm[4]! + z * mm[7]! + mm[10]!) * unit;
          f[nu * 3 + 2] = (x * mm[2]! + y * mm[5]! + z * mm[8]! + mm[11]!) * unit;
          nu++;
        }
        const usedIds = new Uint32Array(nu);
        b.weldBits(new Int32Array(f.buffer), nu, usedIds);
        const ids = new Uint32Array(def.nv);
        for (let i = 0, k = 0; i < def.nv; i++) if (used[i]) ids[i] = usedIds[k++]!;
        b.trianglesMapped(t, def.nt, ids);
      }
      for (const c of def.components ?? []) emit(c.ref, compose(c.transform, mm));
    };
    for (const item of rootPart.items) {
      b.beginPart();
      emit(item.ref, item.transform);
    }
    return { ...b.finish(), warnings };
  } finally {
    b.dispose();
  }
}
