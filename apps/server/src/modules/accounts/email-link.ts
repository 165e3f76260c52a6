import { createHash, randomBytes } from 'node:crypto';
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthEndpoint } from 'better-auth/api';
import { setSessionCookie } from 'better-auth/cookies';
import { z } from 'zod';
import type { Mailer } from '../notifications/mailer.ts';

/**
 * "Email me a sign-in link" (issue 10, finding 4): the owner of a throttled account always has a
 * way in. Our own plugin rather than better-auth's magicLink, which on first use deletes the
 * password and every session of an account whose email is not marked verified (all of ours).
 *
 * - POST /sign-in/email-link {email}: always `{ status: true }` (it never tells whether the
 *   account exists); for an existing account, within the link limits (login-throttle.ts), it mails
 *   `<origin>/login#link=<token>` — a fragment, so the token reaches neither server logs nor
 *   Referer headers, and a mail scanner that fetches the link does not use it up.
 * - POST /sign-in/email-link/verify {token}: the sign-in page posts the token; valid once, for
 *   15 minutes; the session cookie is set as for a password sign-in.
 * Tokens are 256 random bits; only their SHA-256 is stored (better-auth's verification table),
 * and the row is consumed atomically, so a link works once even when clicked twice at once.
 */
export const EMAIL_LINK_TTL_SECONDS = 15 * 60;
export const INVALID_LINK_MESSAGE = 'This sign-in link is invalid, already used or expired. Ask for a new one.';

export interface EmailLinkOptions {
  readonly mailer: Mailer;
  /** Counts a link about to be sent for this account, asked by this request; false when too many were sent lately. */
  readonly takeLinkSend: (email: string, requestHeaders: Headers | undefined) => Promise<boolean>;
  /** The web origin the link points to, given the request's Origin header. */
  readonly linkOrigin: (requestOrigin: string | null) => string;
  readonly onSent?: (email: string) => void;
}

const identifierOf = (token: string) => `sign-in-link:${createHash('sha256').update(token).digest('hex')}`;

export function emailLink(options: EmailLinkOptions) {
  return {
    id: 'layerline-email-link',
    endpoints: {
      requestEmailLink: createAuthEndpoint(
        '/sign-in/email-link',
        { method: 'POST', body: z.object({ email: z.string().trim().min(3).max(320) }).strict(), requireHeaders: true },
        async (ctx) => {
          const email = ctx.body.email.toLowerCase();
          const found = await ctx.context.internalAdapter.findUserByEmail(email);
          if (found?.user && (await options.takeLinkSend(email, ctx.headers))) {
            const token = randomBytes(32).toString('base64url');
            await ctx.context.internalAdapter.createVerificationValue({
              identifier: identifierOf(token),
              value: found.user.id,
              expiresAt: new Date(Date.now() + EMAIL_LINK_TTL_SECONDS * 1000),
            });
            const url = `${options.linkOrigin(ctx.headers?.get('origin') ?? null)}/login#link=${token}`;
            await options.mailer.send({
              to: found.user.email,
              subject: 'Your Layerline sign-in link',
              text: [
                'Someone (hopefully you) asked for a link to sign in to Layerline with this address.',
                '',
                url,
                '',
                'The link works once, for 15 minutes. If you did not ask for it, ignore this email:',
                'nobody can use it without access to your mailbox.',
              ].join('\n'),
            });
            options.onSent?.(email);
          }
          return ctx.json({ status: true });
        },
      ),
      verifyEmailLink: createAuthEndpoint(
        '/sign-in/email-link/verify',
        { method: 'POST', body: z.object({ token: z.string().min(1).max(200) }).strict(), requireHeaders: true },
        async (ctx) => {
          const consumed = await ctx.context.internalAdapter.consumeVerificationValue(identifierOf(ctx.body.token));
          const user = consumed ? await ctx.context.internalAdapter.findUserById(consumed.value) : null;
          if (!user) throw new APIError('UNAUTHORIZED', { message: INVALID_LINK_MESSAGE });
          const session = await ctx.context.internalAdapter.createSession(user.id);
          await setSessionCookie(ctx, { session, user });
          return ctx.json({ token: session.token, user: { id: user.id, email: user.email, name: user.name } });
        },
      ),
    },
  } satisfies BetterAuthPlugin;
}
