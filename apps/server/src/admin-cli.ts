import pino from 'pino';
import { ConfigError, loadConfig } from './config.ts';
import { bootstrap } from './bootstrap.ts';

/**
 * Operator commands that need no running server: `npm run admin -- grant-admin EMAIL`.
 * With the embedded database, stop the server first (the data directory is locked to one process).
 */
const USAGE = 'Usage: npm run admin -- grant-admin EMAIL';

async function run(argv: string[]): Promise<number> {
  const [command, email] = argv;
  if (command !== 'grant-admin' || !email) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const running = await bootstrap(config, pino({ level: 'error' }), { workJobs: false });
  try {
    const { context } = running;
    if (!(await context.users.findIdByEmail(email))) {
      console.error(`No account with the email ${email}. Sign up first, then run this again.`);
      return 1;
    }
    const changed = await context.accounts.grantConfiguredAdmins([email.toLowerCase()]);
    console.log(changed > 0 ? `${email} is now an admin.` : `${email} was already an admin.`);
    return 0;
  } finally {
    await running.close();
  }
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exitCode = 1;
}
