import { createHash, randomBytes } from 'node:crypto';
import { AppError, notFound } from '../../errors.ts';
import type { ApiKeyRateRepository } from './api-key-rate-limit.ts';
import { WINDOW_MS } from './api-key-rate-limit.ts';
import type { ApiKeyRepository, ApiKeyRow } from './api-key-repository.ts';
import type { ApiKeyDto, CreatedApiKeyDto } from './order-api-schemas.ts';

export const API_KEY_PREFIX = 'll_live_';
const KEY_PATTERN = /^ll_live_[A-Za-z0-9_-]{43}$/;
/** Enough for one key per integration and a rotation in progress; more is a sign of leaking keys. */
export const MAX_ACTIVE_KEYS = 20;
/** Revoked keys listed beside the active ones: the most recently revoked (docs/api.md, "Lists"). */
export const LISTED_REVOKED_KEYS = 20;
/** Requests per key and minute, counted in the database (shared by every process). */
export const ORDER_API_REQUESTS_PER_MINUTE = 120;

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** Who an API key speaks for. */
export interface ApiKeyPrincipal {
  readonly keyId: string;
  readonly ownerId: string;
}

const invalidKey = (): AppError => new AppError('unauthenticated', 'Invalid API key');
export const NOT_IN_BETA_MESSAGE = 'The order API is open to beta testers only, and this key’s owner is not in the beta';

function toDto(row: ApiKeyRow): ApiKeyDto {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Order API keys: `ll_live_` + 32 random bytes (base64url). The key is returned once, at
 * creation; only its SHA-256 is stored (a fast hash is right for 256 random bits: there is
 * nothing to brute-force), plus its first 12 characters to recognise it in lists.
 */
export function createApiKeyService(deps: {
  keys: ApiKeyRepository;
  rates: ApiKeyRateRepository;
  requestsPerMinute?: number;
  now?: () => Date;
}) {
  const { keys, rates } = deps;
  const now = deps.now ?? (() => new Date());
  const perMinute = deps.requestsPerMinute ?? ORDER_API_REQUESTS_PER_MINUTE;

  return {
    async create(ownerId: string, name: string): Promise<CreatedApiKeyDto> {
      if ((await keys.countActive(ownerId)) >= MAX_ACTIVE_KEYS) {
        throw new AppError('conflict', `You have ${MAX_ACTIVE_KEYS} active keys; revoke one you no longer use first`);
      }
      const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
      const row = await keys.insert({ ownerId, name, prefix: key.slice(0, 12), keyHash: hashApiKey(key) });
      return { ...toDto(row), key };
    },

    async list(ownerId: string): Promise<ApiKeyDto[]> {
      return (await keys.listForOwner(ownerId, LISTED_REVOKED_KEYS)).map(toDto);
    },

    async revoke(ownerId: string, id: string): Promise<void> {
      // Another seller's key answers exactly like a missing one.
      if (!(await keys.revoke(ownerId, id))) throw notFound('API key');
    },

    /**
     * One /api/v1 request: resolves `Authorization: Bearer ll_live_…` (anything else is 401),
     * refuses a key whose owner is no longer a beta tester or admin (403), and counts the request
     * against the key's limit (429 past it). One statement: the key with its owner's flags and the
     * counter's upsert (api-key-rate-limit.ts); "last used" is written with the first request of each window.
     */
    async authenticate(authorization: string | undefined): Promise<ApiKeyPrincipal> {
      if (!authorization) {
        throw new AppError('unauthenticated', 'Send your API key in the header Authorization: Bearer ll_live_…');
      }
      const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
      const key = match?.[1];
      if (!key || !KEY_PATTERN.test(key)) throw invalidKey();
      // The key, its owner's flags and the request counted: one statement (the order API's hot path).
      const found = await rates.findKeyAndCount(hashApiKey(key));
      if (!found || found.revoked) throw invalidKey();
      if (!found.ownerMayUseApi) throw new AppError('forbidden', NOT_IN_BETA_MESSAGE);
      const row = { id: found.keyId, ownerId: found.ownerId };
      const counted = found.counted ?? (await rates.count(row.id));
      if (counted.count > perMinute) {
        const left = counted.windowStart.getTime() + WINDOW_MS - now().getTime();
        throw new AppError('rate-limited', `This API key is limited to ${perMinute} requests per minute`, {
          retryAfterSeconds: Math.min(WINDOW_MS / 1000, Math.max(1, Math.ceil(left / 1000))),
        });
      }
      if (counted.count === 1) await keys.touch(row.id, now());
      return { keyId: row.id, ownerId: row.ownerId };
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
