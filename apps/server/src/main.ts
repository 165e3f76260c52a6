import closeWithGrace from 'close-with-grace';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { bootstrap } from './bootstrap.ts';
import { buildHttpServer } from './http/app.ts';
import { DEMO_ACCOUNTS, seedDemoData } from './demo-data.ts';

/** The web process: HTTP (API and web app) and, unless told otherwise, the job queue's work. */
async function main(config: Config): Promise<void> {
  const logger = pino({
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
  });
  const running = await bootstrap(config, logger, { workJobs: config.runJobsInProcess });
  const { context } = running;
  await context.accounts.grantConfiguredAdmins(config.adminEmails);
  if (config.seedDemoData) await seedDemoData(context);

  const app = await buildHttpServer(context, { logger });
  closeWithGrace({ delay: 20_000 }, async ({ err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    await app.close();
    await running.close();
  });
  const address = await app.listen({ host: config.host, port: config.port });
  const url = config.publicUrl ?? address.replace('0.0.0.0', 'localhost').replace('[::]', 'localhost');
  const lines = [
    `Layerline is running at ${url}`,
    `  Database: ${running.databaseKind === 'pglite' ? `embedded (PGlite) in ${config.dataDir}` : 'PostgreSQL'}`,
    `  Quotes: geometry estimate${running.slicerAvailable ? ', then exact slicing with PrusaSlicer' : ' (PrusaSlicer not found: exact slicing off)'}`,
  ];
  if (config.seedDemoData) {
    lines.push(
      `  Demo seller: ${DEMO_ACCOUNTS.seller.email} / ${DEMO_ACCOUNTS.seller.password}`,
      `  Demo admin:  ${DEMO_ACCOUNTS.admin.email} / ${DEMO_ACCOUNTS.admin.password}`,
    );
  }
  console.log(lines.join('\n'));
}

try {
  await main(loadConfig());
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
