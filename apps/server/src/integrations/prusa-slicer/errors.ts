/**
 * The one error the PrusaSlicer client throws. The code is a closed list the quote job maps to a
 * customer-facing outcome; the message is readable (no scratch paths, no stack traces).
 */
export const SLICER_ERROR_CODES = ['unavailable', 'timeout', 'memory', 'does-not-fit', 'empty-print', 'failed'] as const;

export type SlicerErrorCode = (typeof SLICER_ERROR_CODES)[number];

export interface SlicerErrorDetails {
  /** The slicer's exit code, when it exited on its own. */
  exitCode?: number | null;
  /** The signal that ended the slicer (SIGKILL after our timeout, SIGXCPU at the CPU limit, SIGABRT...). */
  signal?: string | null;
  /** Process (and process group) id of the sandboxed slicer, when one was started. */
  pid?: number;
  /** The last lines the slicer printed, scratch paths removed; for logs, not for customers. */
  output?: string;
  cause?: unknown;
}

export class SlicerError extends Error {
  readonly code: SlicerErrorCode;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly pid: number | undefined;
  readonly output: string;

  constructor(code: SlicerErrorCode, message: string, details: SlicerErrorDetails = {}) {
    super(message, { cause: details.cause });
    this.name = 'SlicerError';
    this.code = code;
    this.exitCode = details.exitCode ?? null;
    this.signal = details.signal ?? null;
    this.pid = details.pid;
    this.output = details.output ?? '';
  }
}

export const isSlicerError = (value: unknown): value is SlicerError => value instanceof SlicerError;
