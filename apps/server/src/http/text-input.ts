import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

/**
 * PostgreSQL cannot store U+0000 in text (22021 "invalid byte sequence") nor a lone UTF-16 surrogate
 * (`\ud800`) in jsonb (22P02 "invalid input syntax for type json"), and no field of ours means
 * either. So a string with one, anywhere in a request's path parameters, query or JSON body, is
 * refused here, once for every route (better-auth's included), naming the field it was found in: no
 * route has to remember it, and none reaches the database with it.
 */
export function registerTextInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    for (const [part, value] of [
      ['', request.params],
      ['', request.query],
      ['body', request.body],
    ] as const) {
      const where = unstorableAt(value, part);
      if (where !== null) throw new AppError('bad-request', `${where || part || 'body'}: must not contain a NUL (\\u0000) character or a lone surrogate`);
    }
  });
}

/** The dotted path of the first string (value or key) that is not storable text, or null. Iterative: bodies nest deep. */
function unstorableAt(root: unknown, rootPath: string): string | null {
  const stack: [unknown, string][] = [[root, rootPath]];
  while (stack.length > 0) {
    const [value, at] = stack.pop()!;
    if (typeof value === 'string') {
      if (!storable(value)) return at;
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const childPath = at ? `${at}.${key}` : key;
        if (!storable(key)) return childPath;
        stack.push([child, childPath]);
      }
    }
  }
  return null;
}

const storable = (text: string): boolean => !text.includes('\u0000') && text.isWellFormed();
