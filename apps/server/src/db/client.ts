import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema.ts';
import { lockDataDir } from './data-dir-lock.ts';

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
  readonly db: Database;
  readonly kind: 'pglite' | 'postgres';
  /** What the job queue connects through: the same embedded database, or the same server. */
  readonly jobBackend: { kind: 'pglite'; client: PGlite } | { kind: 'postgres'; connectionString: string };
  close(): Promise<void>;
}

const MIGRATIONS_FOLDER = path.resolve(new URL('../../drizzle', import.meta.url).pathname);
/** Any fixed number: serialises migrations when several processes start against one PostgreSQL. */
const MIGRATION_LOCK_ID = 7_412_0001;

interface Logger {
  error(obj: unknown, msg?: string): void;
}

/**
 * Opens the database and brings its schema up to date: PostgreSQL when a URL is given,
 * otherwise an embedded PGlite in `dataDir` (locked to this process).
 */
export async function openDatabase(
  options: { databaseUrl?: string | undefined; dataDir: string },
  logger: Logger,
): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, logger);
  return openPglite(options.dataDir);
}

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const unlock = lockDataDir(dataDir);
  try {
    // pg_trgm: the substring search indexes (migration 0007); btree_gin: the fulfilment history's seller + term index (0018).
    const client = await PGlite.create(path.join(dataDir, 'pglite'), { extensions: { pg_trgm, btree_gin } });
    const db = drizzlePglite({ client, schema });
    await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
    return {
      db: db as unknown as Database,
      kind: 'pglite',
      jobBackend: { kind: 'pglite', client },
      async close() {
        await client.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}

async function openPostgres(url: string, logger: Logger): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A restart of PostgreSQL emits 'error' on idle clients and on clients checked out for a
  // transaction; without a listener on each, Node crashes.
  pool.on('error', (error) => logger.error({ err: error }, 'PostgreSQL pool error'));
  pool.on('connect', (client) => {
    client.on('error', (error) => logger.error({ err: error }, 'PostgreSQL client error'));
  });
  const db = drizzlePg({ client: pool, schema });
  const lockClient = await pool.connect();
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await migratePg(db, { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    lockClient.release();
  }
  return {
    db: db as unknown as Database,
    kind: 'postgres',
    jobBackend: { kind: 'postgres', connectionString: url },
    close: () => pool.end(),
  };
}
