import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { z } from 'zod';

/**
 * Test helper: TikTok Shop publishes no OpenAPI, and Prism cannot load the Partner Center
 * `api_meta` JSON in /work/shared/contracts/tiktok-shop/ (README there). This turns one file's
 * field lists into zod schemas and checks a request against them: method (1 POST, 2 GET, 3 PUT,
 * 4 DELETE), path (`{param}` segments), headers, query and body (required Y/N, types, nesting by
 * leading `^`). Requests are strict (a field the document does not list is an error, so a typo
 * fails); responses are checked for types only (TikTok adds fields between versions).
 */

interface ApiParam {
  readonly name: string;
  readonly type: string;
  readonly required: string;
}

interface ApiMeta {
  readonly interface_path: string;
  readonly method: number;
  readonly request_header_param: readonly ApiParam[] | null;
  readonly request_path_param: readonly ApiParam[] | null;
  readonly request_query_param: readonly ApiParam[] | null;
  readonly request_body_param: readonly ApiParam[] | null;
  readonly response_param: readonly ApiParam[] | null;
  readonly response_body: string;
}

const METHODS: Readonly<Record<number, string>> = { 1: 'POST', 2: 'GET', 3: 'PUT', 4: 'DELETE' };

interface FieldNode {
  readonly type: string;
  readonly required: boolean;
  readonly children: Map<string, FieldNode>;
}

const scalar = (type: string, children: Map<string, FieldNode>, strict: boolean): z.ZodType => {
  switch (type) {
    case 'string':
      return z.string();
    case 'int':
      return z.number().int();
    case 'bool':
      return z.boolean();
    case 'object':
      return objectOf(children, strict);
    default:
      throw new Error(`Unknown api_meta type ${type}`);
  }
};

const objectOf = (fields: Map<string, FieldNode>, strict: boolean): z.ZodType => {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, node] of fields) {
    const schema = node.type.startsWith('[]')
      ? z.array(scalar(node.type.slice(2), node.children, strict))
      : scalar(node.type, node.children, strict);
    shape[name] = node.required ? schema : schema.optional();
  }
  return strict ? z.strictObject(shape) : z.looseObject(shape);
};

/** The flat list with `^` nesting → an object schema. `strict`: no fields beyond the list. */
export const fieldsToSchema = (params: readonly ApiParam[], strict: boolean): z.ZodType => {
  const root = new Map<string, FieldNode>();
  const stack: Map<string, FieldNode>[] = [root];
  for (const param of params) {
    const depth = param.name.length - param.name.replace(/^\^+/, '').length;
    const parent = stack[depth];
    if (!parent) throw new Error(`api_meta field ${param.name} has no parent`);
    const node: FieldNode = { type: param.type, required: param.required === 'Y', children: new Map() };
    parent.set(param.name.slice(depth), node);
    stack[depth + 1] = node.children;
    stack.length = depth + 2;
  }
  return objectOf(root, strict);
};

/** A query value as the URL carries it, checked against the field's declared type. */
const queryValueOk = (type: string, value: string): boolean => {
  if (type === 'int') return /^-?\d+$/.test(value);
  if (type === 'bool') return value === 'true' || value === 'false';
  if (type === '[]string') return value.split(',').every((part) => part !== '');
  return type === 'string';
};

export interface RecordedRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly body: string;
}

export interface TikTokApiDocument {
  readonly file: string;
  readonly method: string;
  readonly pathTemplate: string;
  matches(method: string, pathname: string): boolean;
  /** Problems with the request; [] when it is valid against the document. */
  check(request: RecordedRequest): string[];
  /** Problems with a response body; [] when its types agree with the document. */
  checkResponse(body: unknown): string[];
  /** The document's own example response (parsed `response_body`). */
  exampleResponse(): Record<string, unknown>;
}

const problemsOf = (schema: z.ZodType, value: unknown, what: string): string[] => {
  const result = schema.safeParse(value);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${what}.${issue.path.join('.')} ${issue.message}`);
};

export const loadTikTokApiDocument = (path: string): TikTokApiDocument => {
  const meta = (JSON.parse(readFileSync(path, 'utf8')) as { document_api_meta: ApiMeta }).document_api_meta;
  const method = METHODS[meta.method];
  if (!method) throw new Error(`${path}: unknown method code ${meta.method}`);
  const pathPattern = new RegExp(
    `^${meta.interface_path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
  );
  const bodyParams = meta.request_body_param ?? [];
  const bodySchema = fieldsToSchema(bodyParams, true);
  const responseSchema = fieldsToSchema(meta.response_param ?? [], false);
  const file = basename(path);

  return {
    file,
    method,
    pathTemplate: meta.interface_path,
    matches: (m, pathname) => m === method && pathPattern.test(pathname),
    check: (request) => {
      const problems: string[] = [];
      if (request.method !== method) problems.push(`method ${request.method}, the document says ${method}`);
      if (!pathPattern.test(request.url.pathname))
        problems.push(`path ${request.url.pathname} is not ${meta.interface_path}`);
      for (const header of meta.request_header_param ?? []) {
        if (header.required === 'Y' && !request.headers.get(header.name))
          problems.push(`header ${header.name} missing`);
      }
      const declared = new Map((meta.request_query_param ?? []).map((p) => [p.name, p]));
      for (const [key, value] of request.url.searchParams) {
        const param = declared.get(key);
        if (!param) problems.push(`query ${key} is not in the document`);
        else if (!queryValueOk(param.type, value))
          problems.push(`query ${key}=${value} is not a ${param.type}`);
      }
      for (const param of declared.values()) {
        if (param.required === 'Y' && !request.url.searchParams.has(param.name))
          problems.push(`query ${param.name} missing`);
      }
      if (bodyParams.length === 0) {
        if (request.body !== '') problems.push('a body was sent; the document has none');
      } else {
        let body: unknown;
        try {
          body = JSON.parse(request.body || 'null');
        } catch {
          problems.push('the body is not JSON');
        }
        if (body !== undefined) problems.push(...problemsOf(bodySchema, body ?? {}, 'body'));
      }
      return problems;
    },
    checkResponse: (body) => problemsOf(responseSchema, body, 'response'),
    exampleResponse: () => JSON.parse(meta.response_body) as Record<string, unknown>,
  };
};
