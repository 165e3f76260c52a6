/**
 * The one error type the API throws on purpose. Its code decides the HTTP status here and only
 * here; anything else that escapes a handler is logged and answered as a generic 500.
 */
export const ERROR_STATUS = {
  'bad-request': 400,
  unauthenticated: 401,
  'payment-required': 402,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'payload-too-large': 413,
  'unsupported-media-type': 415,
  unprocessable: 422,
  'rate-limited': 429,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const NO_LOGGED_IN_USER = 'No logged-in user';

export const notSignedIn = (): AppError => new AppError('unauthenticated', NO_LOGGED_IN_USER);
export const forbidden = (message = 'You do not have permission to do that'): AppError =>
  new AppError('forbidden', message);
export const notFound = (what: string): AppError => new AppError('not-found', `${what} not found`);
