import closeWithGrace from 'close-with-grace';
import pino from 'pino';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { createAppContext } from './app-context.ts';
import { buildHttpServer } from './http/app.ts';
import { DEMO_ACCOUNTS, seedDemoData } from './demo-data.ts';

/** Composition root of the server: config -> database -> modules -> HTTP. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = pino({
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
  });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }, logger);
  const context = createAppContext(config, database.db);
  await context.accounts.grantConfiguredAdmins(config.adminEmails);
  if (config.seedDemoData) await seedDemoData(context);

  const app = await buildHttpServer(context, { logger });
  closeWithGrace({ delay: 20_000 }, async ({ err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    await app.close();
    await database.close();
  });
  const address = await app.listen({ host: config.host, port: config.port });
  const url = config.publicUrl ?? address.replace('0.0.0.0', 'localhost').replace('[::]', 'localhost');
  const lines = [`Layerline is running at ${url} (database: ${database.kind === 'pglite' ? `embedded, ${config.dataDir}` : 'PostgreSQL'})`];
  if (config.seedDemoData) {
    lines.push(
      `  Demo seller: ${DEMO_ACCOUNTS.seller.email} / ${DEMO_ACCOUNTS.seller.password}`,
      `  Demo admin:  ${DEMO_ACCOUNTS.admin.email} / ${DEMO_ACCOUNTS.admin.password}`,
    );
  }
  console.log(lines.join('\n'));
}

await main();
