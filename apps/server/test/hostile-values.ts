/**
 * Hostile values for the hostile-inputs suite (http/hostile-inputs.api.test.ts): what an attacker or a
 * broken client sends in place of each field, and a plausible request to put them in. Everything is
 * chosen from an OpenAPI (JSON Schema) description and a fixed seed, so a run is repeatable and a
 * failure names the value that caused it.
 */

/** The JSON Schema subset @fastify/swagger writes for our zod schemas. */
export interface Schema {
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly pattern?: string;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly items?: Schema;
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly allOf?: readonly Schema[];
}

export interface HostileValue<T> {
  readonly label: string;
  readonly value: T;
}

const nested = (depth: number, make: (inner: unknown) => unknown): unknown => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = make(value);
  return value;
};

/** Values for a JSON body field, by what they attack. */
export const JSON_VALUES = {
  impossibleDate: { label: 'impossible date', value: '2026-13-45' },
  impossibleDateTime: { label: 'impossible date-time', value: '2026-02-30T25:61:00Z' },
  nul: { label: 'NUL byte', value: 'a\u0000b' },
  control: { label: 'control characters', value: '\u0001\u0007\u001b[31m\u007f\u0085' },
  loneSurrogate: { label: 'lone surrogate', value: 'a\ud800b' },
  longString: { label: '100k-character string', value: 'x'.repeat(100_000) },
  empty: { label: 'empty string', value: '' },
  nonUuid: { label: 'non-UUID', value: 'not-a-uuid' },
  almostUuid: { label: 'almost a UUID', value: '00000000-0000-4000-8000-00000000000g' },
  huge: { label: 'huge number', value: 1e308 },
  unsafeInteger: { label: 'unsafe integer', value: 2 ** 53 + 2 },
  negative: { label: 'negative number', value: -1 },
  fraction: { label: 'fraction', value: 0.5 },
  numericString: { label: 'number as a string', value: '99999999999999999999' },
  booleanString: { label: 'boolean as a string', value: 'true' },
  boolean: { label: 'boolean', value: true },
  null: { label: 'null', value: null },
  array: { label: 'array', value: ['a', 'b'] },
  nulArray: { label: 'array of NUL strings', value: ['\u0000'] },
  object: { label: 'object', value: { a: 1 } },
  deepObject: { label: 'deeply nested object', value: nested(500, (inner) => ({ a: inner })) },
  deepArray: { label: 'deeply nested array', value: nested(500, (inner) => [inner]) },
  traversal: { label: 'path traversal', value: '../../../etc/passwd' },
  sql: { label: 'SQL quote', value: "' OR 1=1 --" },
} as const satisfies Record<string, HostileValue<unknown>>;

/** Values for a path or query parameter, already percent-encoded (some are deliberately malformed). */
export const URL_VALUES = {
  impossibleDate: { label: 'impossible date', value: '2026-13-45' },
  impossibleDateTime: { label: 'impossible date-time', value: '2026-02-30T25%3A61%3A00Z' },
  nul: { label: 'NUL byte', value: 'a%00b' },
  control: { label: 'control characters', value: '%01%07%1B%7F' },
  invalidUtf8: { label: 'invalid UTF-8', value: '%ED%A0%80' },
  badPercent: { label: 'malformed percent-encoding', value: '%E0%A4%A' },
  longString: { label: '6k-character string', value: 'x'.repeat(6_000) },
  empty: { label: 'empty string', value: '' },
  nonUuid: { label: 'non-UUID', value: 'not-a-uuid' },
  huge: { label: 'huge number', value: '99999999999999999999999' },
  exponent: { label: 'number overflowing a double', value: '1e400' },
  negative: { label: 'negative number', value: '-1' },
  fraction: { label: 'fraction', value: '0.5' },
  nan: { label: 'NaN', value: 'NaN' },
  traversal: { label: 'path traversal', value: '..%2F..%2Fetc%2Fpasswd' },
  sql: { label: 'SQL quote', value: '%27%20OR%201%3D1%20--' },
} as const satisfies Record<string, HostileValue<string>>;

/** A query parameter given twice (an array where one value is expected). */
export const REPEATED_PARAMETER = 'repeated parameter';

type JsonKey = keyof typeof JSON_VALUES;
type UrlKey = keyof typeof URL_VALUES;

/** The kind of value a schema asks for, for choosing which attacks always apply to it. */
function kindOf(schema: Schema): 'uuid' | 'date' | 'number' | 'boolean' | 'array' | 'object' | 'string' {
  const options = schema.anyOf ?? schema.oneOf;
  if (options) {
    const first = options.find((option) => option.type !== 'null');
    if (first) return kindOf(first);
  }
  const type = [schema.type ?? ''].flat()[0];
  if (schema.format === 'uuid') return 'uuid';
  if (schema.format === 'date' || schema.format === 'date-time') return 'date';
  if (type === 'integer' || type === 'number') return 'number';
  if (type === 'boolean') return 'boolean';
  if (type === 'array') return 'array';
  if (type === 'object' || schema.properties) return 'object';
  return 'string';
}

/** Every field is sent these (by kind): the attacks that matter for its type. */
const CORE_JSON: Record<ReturnType<typeof kindOf>, readonly JsonKey[]> = {
  uuid: ['nonUuid', 'nul', 'array'],
  date: ['impossibleDate', 'impossibleDateTime', 'nul'],
  number: ['huge', 'negative', 'fraction', 'numericString'],
  boolean: ['booleanString', 'object'],
  array: ['object', 'nulArray', 'deepArray'],
  object: ['deepObject', 'array', 'nul'],
  string: ['nul', 'longString', 'empty', 'impossibleDate', 'array'],
};
const CORE_URL: Record<ReturnType<typeof kindOf>, readonly UrlKey[]> = {
  uuid: ['nonUuid', 'nul'],
  date: ['impossibleDate', 'impossibleDateTime'],
  number: ['huge', 'exponent', 'negative', 'nan'],
  boolean: ['nonUuid'],
  array: ['nul'],
  object: ['nul'],
  string: ['nul', 'impossibleDate', 'longString', 'empty'],
};

/** A fixed-seed random source: `pick(list, n)` answers the same n items of a list in every run. */
export function seededPicker(seed: number): <T>(list: readonly T[], n: number) => T[] {
  // mulberry32: a tiny 32-bit generator, enough to spread the draws; one stream for the whole run.
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return (list, n) => {
    const rest = [...list];
    const picked = [];
    while (picked.length < n && rest.length > 0) picked.push(rest.splice(Math.floor(next() * rest.length), 1)[0]!);
    return picked;
  };
}

export type Picker = ReturnType<typeof seededPicker>;

/** The attacks on one JSON field: those for its kind, and `extra` more drawn from the others. */
export function jsonValuesFor(schema: Schema, pick: Picker, extra: number): HostileValue<unknown>[] {
  const core = CORE_JSON[kindOf(schema)];
  const others = (Object.keys(JSON_VALUES) as JsonKey[]).filter((key) => !core.includes(key));
  return [...core, ...pick(others, extra)].map((key) => JSON_VALUES[key]);
}

/** The attacks on one path or query parameter, as for JSON fields. */
export function urlValuesFor(schema: Schema, pick: Picker, extra: number): HostileValue<string>[] {
  const core = CORE_URL[kindOf(schema)];
  const others = (Object.keys(URL_VALUES) as UrlKey[]).filter((key) => !core.includes(key));
  return [...core, ...pick(others, extra)].map((key) => URL_VALUES[key]);
}

/**
 * A plausible value for a schema: `known` names the ids and values of the test's own objects by
 * field name; otherwise the schema's own enum, default, format and bounds decide. The request built
 * from these need not be accepted (the suite only learns which field a refusal of it names).
 */
export function plausible(schema: Schema, known: Readonly<Record<string, unknown>>, name = ''): unknown {
  if (name in known) return known[name];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (options) {
    const first = options.find((option) => option.type !== 'null') ?? options[0]!;
    return plausible(first, known, name);
  }
  if (schema.allOf?.[0]) return plausible(schema.allOf[0], known, name);
  if (schema.default !== undefined) return schema.default;
  const type = [schema.type ?? ''].flat()[0];
  switch (type) {
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, Math.min(schema.maximum ?? 1, 1));
    case 'boolean':
      return false;
    case 'array':
      return schema.minItems ? [plausible(schema.items ?? {}, known)] : [];
    case 'null':
      return null;
  }
  if (type === 'object' || schema.properties) {
    const object: Record<string, unknown> = {};
    for (const key of schema.required ?? []) object[key] = plausible(schema.properties?.[key] ?? {}, known, key);
    return object;
  }
  if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  if (schema.format === 'email') return 'hostile@example.test';
  if (schema.format === 'date-time') return new Date().toISOString();
  if (schema.format === 'date') return new Date().toISOString().slice(0, 10);
  if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/';
  if (schema.pattern === '^[A-Z]{2}$') return 'US';
  return 'h'.repeat(Math.max(schema.minLength ?? 1, 5));
}

/** One field of a JSON body to attack: its path from the body's root and its schema. */
export interface BodyField {
  readonly path: readonly (string | number)[];
  readonly schema: Schema;
  /** The schemas of the containers on the way, outermost first (to make an optional one plausibly). */
  readonly parents: readonly Schema[];
}

/**
 * The fields of a body schema, down to `depth` levels: each property of an object, and the first
 * element of an array (the plausible body has one when the schema asks for at least one).
 */
export function bodyFields(schema: Schema, depth: number, at: readonly (string | number)[] = [], parents: readonly Schema[] = []): BodyField[] {
  const options = schema.anyOf ?? schema.oneOf;
  const object = options ? (options.find((option) => option.properties) ?? schema) : schema;
  const fields: BodyField[] = [];
  for (const [key, child] of Object.entries(object.properties ?? {})) {
    const path = [...at, key];
    fields.push({ path, schema: child, parents });
    if (depth <= 1) continue;
    if (child.properties || child.anyOf || child.oneOf) fields.push(...bodyFields(child, depth - 1, path, [...parents, child]));
    else if (child.items && child.minItems) fields.push(...bodyFields(child.items, depth - 1, [...path, 0], [...parents, child, child.items]));
  }
  return fields;
}

/**
 * A copy of `body` with the field's value replaced; an optional container on the way that the
 * plausible body left out is made plausibly, so the field is the only thing wrong with it.
 */
export function withValueAt(body: unknown, field: BodyField, value: unknown, known: Readonly<Record<string, unknown>>): unknown {
  const root: any = structuredClone(body ?? {});
  let node = root;
  for (const [index, key] of field.path.entries()) {
    if (index === field.path.length - 1) node[key] = value;
    else {
      node[key] ??= plausible(field.parents[index] ?? {}, known);
      node = node[key];
    }
  }
  return root;
}
