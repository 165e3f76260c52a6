/** Closed list of reasons a model is refused; the server maps them to HTTP statuses. */
export const MESH_ERROR_CODES = [
  'empty',
  'unsupported-format',
  'malformed',
  'too-large',
  'zip-bomb',
  'unsafe-archive',
  'xml-entity',
  'xml-too-deep',
  'too-many-triangles',
  'too-complex',
] as const;
export type MeshErrorCode = (typeof MESH_ERROR_CODES)[number];

export class MeshError extends Error {
  readonly code: MeshErrorCode;
  constructor(code: MeshErrorCode, message: string) {
    super(message);
    this.name = 'MeshError';
    this.code = code;
  }
}

export function isMeshError(e: unknown): e is MeshError {
  return e instanceof MeshError;
}
