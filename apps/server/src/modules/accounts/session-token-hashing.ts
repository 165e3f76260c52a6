import { createHash, randomBytes } from 'node:crypto';
import type { BetterAuthOptions, DBAdapter, DBAdapterInstance, DBTransactionAdapter, Where } from 'better-auth/types';

/**
 * Session tokens are stored as their SHA-256 only (issue 10, finding 3): the `session.token`
 * column holds `sha256(token)` in hex, so a dump of the table signs nobody in (a stored value
 * used as a cookie or bearer token is hashed again and matches nothing). Tokens are 32 random
 * characters from better-auth (~190 bits), so an unsalted fast hash is enough, and the
 * migration that converted existing rows could do it in SQL.
 *
 * better-auth never sees the difference: this wraps its database adapter and, for the model
 * "session" only,
 * - hashes every `token` it writes or filters on;
 * - hands back the raw token in place of the stored hash whenever the caller asked by that token
 *   (and on create), so better-auth can set the cookie and compare tokens as before;
 * - for rows read any other way (by user, by id), where the raw token is not known, returns an
 *   in-process reference (`REF` + hash) instead. A reference given back as a filter (revoking,
 *   refreshing a listed session) is resolved to its hash, so better-auth's own flows keep working.
 *   The reference contains a random value made at start and kept only in memory: it cannot be
 *   built from a dump, and never leaves the server (auth-routes strips `token` from session lists).
 */
export function sessionTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

type AnyAdapter = DBAdapter | DBTransactionAdapter;
type Row = Record<string, unknown>;

export function hashSessionTokens(inner: DBAdapterInstance): DBAdapterInstance {
  const REF = `layerline-session-ref:${randomBytes(24).toString('base64url')}:`;
  const toStored = (value: unknown): unknown => {
    if (typeof value !== 'string') return value;
    return value.startsWith(REF) ? value.slice(REF.length) : sessionTokenHash(value);
  };

  /** What better-auth asked for by raw token, so results can carry the raw token back. */
  function rawByStored(where: readonly Where[] | undefined): Map<string, string> {
    const map = new Map<string, string>();
    for (const clause of where ?? []) {
      if (clause.field !== 'token') continue;
      const values = Array.isArray(clause.value) ? clause.value : [clause.value];
      for (const value of values) {
        if (typeof value === 'string' && !value.startsWith(REF)) map.set(sessionTokenHash(value), value);
      }
    }
    return map;
  }

  const mapWhere = (where: Where[] | undefined): Where[] | undefined =>
    where?.map((clause) =>
      clause.field === 'token'
        ? ({
            ...clause,
            value: Array.isArray(clause.value) ? (clause.value as string[]).map((v) => toStored(v) as string) : toStored(clause.value),
          } as Where)
        : clause,
    );

  const mapRow = <T>(row: T, raw: Map<string, string>): T => {
    if (!row || typeof row !== 'object') return row;
    const record = row as Row;
    if (typeof record.token !== 'string') return row;
    return { ...record, token: raw.get(record.token) ?? `${REF}${record.token}` } as T;
  };

  const mapData = (data: Row): Row => (typeof data.token === 'string' ? { ...data, token: toStored(data.token) } : data);

  function wrap<A extends AnyAdapter>(adapter: A): A {
    const isSession = (model: string) => model === 'session';
    const wrapped: AnyAdapter = {
      ...adapter,
      create: async (args) => {
        if (!isSession(args.model)) return adapter.create(args);
        const raw = new Map<string, string>();
        const data = args.data as Row;
        if (typeof data.token === 'string') raw.set(sessionTokenHash(data.token), data.token);
        return mapRow(await adapter.create({ ...args, data: mapData(data) as typeof args.data }), raw);
      },
      findOne: async (args) => {
        if (!isSession(args.model)) return adapter.findOne(args);
        return mapRow(await adapter.findOne({ ...args, where: mapWhere(args.where)! }), rawByStored(args.where));
      },
      findMany: async <T>(args: Parameters<DBAdapter['findMany']>[0]): Promise<T[]> => {
        if (!isSession(args.model)) return adapter.findMany<T>(args);
        const raw = rawByStored(args.where);
        const rows = await adapter.findMany<T>({ ...args, where: mapWhere(args.where) });
        return rows.map((row) => mapRow(row, raw));
      },
      count: (args) => (isSession(args.model) ? adapter.count({ ...args, where: mapWhere(args.where) }) : adapter.count(args)),
      update: async <T>(args: Parameters<DBAdapter['update']>[0]): Promise<T | null> => {
        if (!isSession(args.model)) return adapter.update<T>(args);
        const row = await adapter.update<T>({ ...args, where: mapWhere(args.where)!, update: mapData(args.update) });
        return mapRow(row, rawByStored(args.where));
      },
      updateMany: (args) =>
        isSession(args.model) ? adapter.updateMany({ ...args, where: mapWhere(args.where)!, update: mapData(args.update) }) : adapter.updateMany(args),
      delete: (args) => (isSession(args.model) ? adapter.delete({ ...args, where: mapWhere(args.where)! }) : adapter.delete(args)),
      deleteMany: (args) => (isSession(args.model) ? adapter.deleteMany({ ...args, where: mapWhere(args.where)! }) : adapter.deleteMany(args)),
      consumeOne: async (args) => {
        if (!isSession(args.model)) return adapter.consumeOne(args);
        return mapRow(await adapter.consumeOne({ ...args, where: mapWhere(args.where)! }), rawByStored(args.where));
      },
      incrementOne: async (args) => {
        if (!isSession(args.model)) return adapter.incrementOne(args);
        const set = args.set ? mapData(args.set) : undefined;
        return mapRow(await adapter.incrementOne({ ...args, where: mapWhere(args.where)!, set }), rawByStored(args.where));
      },
    };
    if ('transaction' in adapter && typeof adapter.transaction === 'function') {
      const transaction = adapter.transaction.bind(adapter);
      (wrapped as DBAdapter).transaction = (callback) => transaction((trx) => callback(wrap(trx)));
    }
    return wrapped as A;
  }

  return (options: BetterAuthOptions) => wrap(inner(options));
}
