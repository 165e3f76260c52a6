import { createHash, randomBytes } from 'node:crypto';
import { AppError, notFound } from '../../errors.ts';
import type { ApiKeyRepository, ApiKeyRow } from './api-key-repository.ts';
import type { ApiKeyDto, CreatedApiKeyDto } from './order-api-schemas.ts';

export const API_KEY_PREFIX = 'll_live_';
const KEY_PATTERN = /^ll_live_[A-Za-z0-9_-]{43}$/;
/** Enough for one key per integration and a rotation in progress; more is a sign of leaking keys. */
const MAX_ACTIVE_KEYS = 20;

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** Who an API key speaks for. */
export interface ApiKeyPrincipal {
  readonly keyId: string;
  readonly ownerId: string;
}

const invalidKey = (): AppError => new AppError('unauthenticated', 'Invalid API key');

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
export function createApiKeyService(deps: { keys: ApiKeyRepository; now?: () => Date }) {
  const { keys } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    async create(ownerId: string, name: string): Promise<CreatedApiKeyDto> {
      const existing = await keys.listForOwner(ownerId);
      if (existing.filter((key) => !key.revokedAt).length >= MAX_ACTIVE_KEYS) {
        throw new AppError('conflict', `You have ${MAX_ACTIVE_KEYS} active keys; revoke one you no longer use first`);
      }
      const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
      const row = await keys.insert({ ownerId, name, prefix: key.slice(0, 12), keyHash: hashApiKey(key) });
      return { ...toDto(row), key };
    },

    async list(ownerId: string): Promise<ApiKeyDto[]> {
      return (await keys.listForOwner(ownerId)).map(toDto);
    },

    async revoke(ownerId: string, id: string): Promise<void> {
      // Another seller's key answers exactly like a missing one.
      if (!(await keys.revoke(ownerId, id))) throw notFound('API key');
    },

    /** Resolves `Authorization: Bearer ll_live_…`; anything else is refused with 401. */
    async authenticate(authorization: string | undefined): Promise<ApiKeyPrincipal> {
      if (!authorization) {
        throw new AppError('unauthenticated', 'Send your API key in the header Authorization: Bearer ll_live_…');
      }
      const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
      const key = match?.[1];
      if (!key || !KEY_PATTERN.test(key)) throw invalidKey();
      const row = await keys.findByHash(hashApiKey(key));
      if (!row || row.revokedAt) throw invalidKey();
      await keys.touch(row.id, now());
      return { keyId: row.id, ownerId: row.ownerId };
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
