import closeWithGrace from 'close-with-grace';
import pino from 'pino';
import { ConfigError, listensOnLoopbackOnly, loadConfig, type Config } from './config.ts';
import { bootstrap } from './bootstrap.ts';
import { buildHttpServer } from './http/app.ts';
import { DEMO_ACCOUNTS, DEMO_PASSWORDS_FILE, demoAccountsExist, demoPasswords, seedDemoData } from './demo-data.ts';

/** The web process: HTTP (API and web app) and, unless told otherwise, the job queue's work. */
async function main(config: Config): Promise<void> {
  const logger = pino({
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
  });
  const running = await bootstrap(config, logger, { workJobs: config.runJobsInProcess });
  const { context } = running;
  await context.accounts.grantConfiguredAdmins(config.adminEmails);
  const demo = config.seedDemoData ? demoPasswords(config.dataDir) : undefined;
  if (demo) await seedDemoData(context, demo);
  const demoExposed = !listensOnLoopbackOnly(config.host) && (demo !== undefined || (await demoAccountsExist(context)));

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
    `  Mail: ${config.smtpUrl ? `SMTP (${new URL(config.smtpUrl).host})` : `not sent: written to ${config.dataDir}/outbox and printed here (set SMTP_URL to send)`}`,
  ];
  if (demo) {
    lines.push(
      `  Demo seller: ${DEMO_ACCOUNTS.seller.email} / ${demo.seller}`,
      `  Demo admin:  ${DEMO_ACCOUNTS.admin.email} / ${demo.admin}`,
      `  (passwords made for this installation, kept in ${config.dataDir}/${DEMO_PASSWORDS_FILE})`,
    );
  }
  console.log(lines.join('\n'));
  if (demoExposed) {
    const bar = '!'.repeat(78);
    console.warn(
      [
        bar,
        `WARNING: demo accounts exist (one is an admin) and this server listens on ${config.host}, beyond this machine.`,
        '  Anyone who can reach this address and learns a demo password is an admin of this Layerline.',
        '  Listen on this machine only (unset HOST, or HOST=127.0.0.1), or set SEED_DEMO_DATA=false and',
        `  delete the demo accounts (${DEMO_ACCOUNTS.admin.email}, ${DEMO_ACCOUNTS.seller.email}).`,
        bar,
      ].join('\n'),
    );
  }
}

try {
  await main(loadConfig());
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
