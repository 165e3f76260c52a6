import closeWithGrace from 'close-with-grace';
import pino from 'pino';
import { ConfigError, loadConfig } from './config.ts';
import { bootstrap } from './bootstrap.ts';

/**
 * The job worker as its own process (`npm run worker`), for installs on PostgreSQL that run the web
 * process with RUN_JOBS_IN_PROCESS=false. The embedded database allows one process only, so there
 * the web process works the queue itself.
 */
try {
  const config = loadConfig();
  if (!config.databaseUrl) {
    throw new ConfigError('The worker runs as its own process only on PostgreSQL (set DATABASE_URL); with the embedded database the web process works the queue.');
  }
  const logger = pino({ level: config.logLevel });
  const running = await bootstrap(config, logger, { workJobs: true });
  closeWithGrace({ delay: 20_000 }, async () => running.close());
  logger.info({ slicer: running.slicerAvailable }, 'worker started');
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
