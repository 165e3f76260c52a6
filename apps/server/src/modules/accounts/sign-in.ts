import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { Mailer } from '../notifications/mailer.ts';
import { createAuth } from './auth.ts';
import { createDeviceCookies } from './device-cookie.ts';
import { createLoginThrottle, LOGIN_FAILURE_LIMIT } from './login-throttle.ts';
import { createSessionRepository } from './session-repository.ts';

/**
 * Everything sign-in needs, wired once: better-auth, the per-account throttle (which alerts the
 * owner by email when their account starts being throttled), device cookies and session writes.
 */
export function createSignIn(
  config: Config,
  db: Database,
  deps: {
    mailer: Mailer;
    findUserIdByEmail: (email: string) => Promise<string | undefined>;
    /** After an account is created (the welcome email). */
    onUserCreated?: (user: { id: string; name: string }) => Promise<void>;
  },
) {
  const { mailer } = deps;
  const loginThrottle = createLoginThrottle(db, {
    async onAccountThrottled(email) {
      // Only real accounts get mail: a throttle on an unknown address must not mail a stranger.
      if (!(await deps.findUserIdByEmail(email))) return;
      await mailer.send({
        to: email,
        subject: 'Someone is trying to sign in to your Layerline account',
        text: [
          `There have been ${LOGIN_FAILURE_LIMIT} failed attempts to sign in to your Layerline account within the last hour,`,
          'from browsers you have not signed in with before. To protect you, sign-ins with a password from',
          'new browsers are paused for up to an hour.',
          '',
          'You can still sign in:',
          '- from a browser you have signed in with before, with your password as usual, or',
          '- anywhere, with "Email me a sign-in link" on the sign-in page.',
          '',
          'If these attempts were not yours, consider changing your password to a long, unique one.',
        ].join('\n'),
      });
    },
  });
  return {
    mailer,
    loginThrottle,
    auth: createAuth(config, db, { mailer, loginThrottle, onUserCreated: deps.onUserCreated }),
    sessions: createSessionRepository(db),
    deviceCookies: createDeviceCookies(config.appSecret, { secure: config.publicUrl?.startsWith('https://') ?? false }),
  };
}
