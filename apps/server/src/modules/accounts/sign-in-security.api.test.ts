import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { eq, like, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { session, verification } from '../../db/schema.ts';
import { startTestApp, type TestApp, type TestClient } from '../../../test/test-app.ts';
import { createOutboxMailer, type OutboxMessage } from '../../integrations/outbox-mailer/outbox-mailer.ts';
import { DEVICE_FAILURE_LIMIT, LINK_SEND_LIMIT, LOGIN_FAILURE_LIMIT } from './login-throttle.ts';
import { sessionTokenHash } from './session-token-hashing.ts';
import { DEMO_ACCOUNTS, seedDemoData } from '../../demo-data.ts';

let t: TestApp;
beforeAll(async () => {
  // One proxy hop is trusted, so X-Forwarded-For stands for the many addresses of an attacker.
  t = await startTestApp({ TRUST_PROXY_HOPS: '1' });
});
afterAll(async () => {
  await t?.close();
});

const outbox = (): Promise<OutboxMessage[]> => createOutboxMailer(path.join(t.context.config.dataDir, 'outbox'), () => undefined).list();
const mailTo = async (email: string) => (await outbox()).filter((message) => message.to === email);
const sessionCookieToken = (client: TestClient) =>
  decodeURIComponent(/layerline\.session_token=([^;]+)/.exec(client.cookieHeader())?.[1] ?? '').split('.')[0]!;
/** A session cookie made as better-auth makes one (the value signed with APP_SECRET). */
const signedCookie = (token: string) =>
  `layerline.session_token=${encodeURIComponent(`${token}.${createHmac('sha256', t.context.config.appSecret).update(token).digest('base64')}`)}`;
const storedTokens = async (userId: string) =>
  (await t.context.db.select({ token: session.token }).from(session).where(eq(session.userId, userId))).map((row) => row.token);

describe('session tokens at rest (issue 10, finding 3)', () => {
  it('stores only a hash: no stored value equals a token handed out, and none works as a cookie or bearer token', async () => {
    const seller = await t.signUp();
    const login = await t.client().post('/api/auth/sign-in/email', { email: seller.email, password: seller.password });
    const bearerToken = login.headers.get('set-auth-token')!;
    const handedOut = [sessionCookieToken(seller), bearerToken.split('.')[0]!, login.body.token as string];
    expect(handedOut.every((token) => token.length >= 32)).toBe(true);

    const stored = await storedTokens(seller.userId);
    expect(stored).toHaveLength(2);
    for (const value of stored) {
      expect(handedOut).not.toContain(value);
      expect(value).toMatch(/^[0-9a-f]{64}$/);
      const asBearer = t.client();
      asBearer.bearer = value;
      expect((await asBearer.get('/api/me')).status).toBe(401);
      // Even with APP_SECRET, a dumped value signed into a cookie signs nobody in.
      expect((await t.client().get('/api/me', { cookie: signedCookie(value) })).status).toBe(401);
    }
    expect(stored.sort()).toEqual([sessionTokenHash(sessionCookieToken(seller)), sessionTokenHash(login.body.token)].sort());

    // The real tokens still work, by cookie and by bearer.
    expect((await seller.get('/api/me')).status).toBe(200);
    const api = t.client();
    api.bearer = bearerToken;
    expect((await api.get('/api/me')).body.email).toBe(seller.email);
    const own = await api.get('/api/auth/get-session');
    expect(own.status).toBe(200);
    expect(own.body.user.email).toBe(seller.email);
  });

  it('lists sessions without any token, marks the caller’s own, and revokes another session by id', async () => {
    const seller = await t.signUp();
    const laptop = t.client();
    await laptop.post('/api/auth/sign-in/email', { email: seller.email, password: seller.password });
    const stranger = await t.signUp();

    const listed = await seller.get('/api/auth/list-sessions');
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(2);
    for (const entry of listed.body) {
      expect(entry).not.toHaveProperty('token');
      expect(JSON.stringify(entry)).not.toContain(sessionCookieToken(laptop));
    }
    expect(listed.body.filter((entry: { current: boolean }) => entry.current)).toHaveLength(1);
    const other = listed.body.find((entry: { current: boolean }) => !entry.current);

    // Someone else's session id, or an unknown one: 404, nothing ends.
    expect((await stranger.post('/api/auth/revoke-session', { id: other.id })).status).toBe(404);
    expect((await seller.post('/api/auth/revoke-session', { id: 'no-such-session' })).status).toBe(404);
    expect((await seller.post('/api/auth/revoke-session', { token: sessionCookieToken(laptop) })).status).toBe(400);
    expect((await laptop.get('/api/me')).status).toBe(200);

    const revoked = await seller.post('/api/auth/revoke-session', { id: other.id });
    expect(revoked.status).toBe(200);
    expect((await laptop.get('/api/me')).status).toBe(401);
    expect((await seller.get('/api/me')).status).toBe(200);
    expect((await t.client().post('/api/auth/revoke-session', { id: other.id })).status).toBe(401);
  });

  it('revokes the other sessions but keeps the caller’s; sign-out and a password change still end sessions', async () => {
    const seller = await t.signUp();
    const phone = t.client();
    const tablet = t.client();
    for (const device of [phone, tablet]) await device.post('/api/auth/sign-in/email', { email: seller.email, password: seller.password });
    expect((await seller.post('/api/auth/revoke-other-sessions', {})).status).toBe(200);
    expect((await seller.get('/api/me')).status).toBe(200);
    expect((await phone.get('/api/me')).status).toBe(401);
    expect((await tablet.get('/api/me')).status).toBe(401);
    expect(await storedTokens(seller.userId)).toHaveLength(1);

    const other = t.client();
    await other.post('/api/auth/sign-in/email', { email: seller.email, password: seller.password });
    const changed = await seller.post('/api/auth/change-password', {
      currentPassword: seller.password,
      newPassword: 'another fresh passphrase',
      revokeOtherSessions: true,
    });
    expect(changed.status).toBe(200);
    expect((await other.get('/api/me')).status).toBe(401);
    expect((await seller.get('/api/me')).status).toBe(200);

    const cookie = seller.cookieHeader();
    expect((await seller.post('/api/auth/sign-out', {})).status).toBe(200);
    expect((await t.client().get('/api/me', { cookie })).status).toBe(401);
    expect(await storedTokens(seller.userId)).toHaveLength(0);
  });

  it('the upgrade migration hashes the tokens of existing sessions, which keep working', async () => {
    const seller = await t.signUp();
    const rawToken = 'LegacyPlaintextToken0123456789AB';
    const id = `legacy-${Date.now()}`;
    await t.context.db.insert(session).values({ id, token: rawToken, userId: seller.userId, expiresAt: new Date(Date.now() + 86_400_000) });
    const legacy = t.client();
    legacy.bearer = rawToken;
    expect((await legacy.get('/api/me')).status).toBe(401);

    const migration = fs.readFileSync(new URL('../../../drizzle/0010_hash_session_tokens.sql', import.meta.url), 'utf8');
    await t.context.db.execute(sql.raw(migration));
    const [row] = await t.context.db.select({ token: session.token }).from(session).where(eq(session.id, id));
    expect(row!.token).toBe(sessionTokenHash(rawToken));
    expect((await legacy.get('/api/me')).status).toBe(200);
    // Running it again changes nothing (already hashed values are left alone).
    await t.context.db.execute(sql.raw(migration));
    expect((await legacy.get('/api/me')).status).toBe(200);
  });

  it('leaves no session behind for the seeded demo accounts', async () => {
    const demo = await startTestApp();
    try {
      await seedDemoData(demo.context, { seller: 'demo-seller-password-123', admin: 'demo-admin-password-1234' });
      for (const account of Object.values(DEMO_ACCOUNTS)) {
        const id = await demo.context.users.findIdByEmail(account.email);
        expect(id).toBeTruthy();
        expect(await demo.context.db.select({ id: session.id }).from(session).where(eq(session.userId, id!))).toEqual([]);
      }
    } finally {
      await demo.close();
    }
  });
});

describe('throttling slows the attacker, not the owner (issue 10, finding 4)', () => {
  const attack = async (email: string, times: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < times; i++) {
      const response = await t
        .client()
        .post('/api/auth/sign-in/email', { email, password: `guess number ${i}` }, { 'x-forwarded-for': `198.51.${i % 250}.${(i * 7) % 250}` });
      statuses.push(response.status);
    }
    return statuses;
  };

  it('after 100+ wrong passwords from many addresses: the attacker gets 429, the owner’s known browser still signs in, the owner is alerted once', async () => {
    const owner = await t.signUp();
    const laptop = t.client();
    expect((await laptop.post('/api/auth/sign-in/email', { email: owner.email, password: owner.password })).status).toBe(200);
    expect(laptop.cookieHeader()).toMatch(/layerline\.device=v1\./);

    const statuses = await attack(owner.email, LOGIN_FAILURE_LIMIT + 5);
    expect(statuses.slice(0, LOGIN_FAILURE_LIMIT).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(LOGIN_FAILURE_LIMIT)).toEqual([429, 429, 429, 429, 429]);

    // Without the device cookie, even the right password waits.
    const stranger = await t.client().post('/api/auth/sign-in/email', { email: owner.email, password: owner.password }, { 'x-forwarded-for': '203.0.113.9' });
    expect(stranger.status).toBe(429);
    expect(Number(stranger.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(stranger.body.error).toMatch(/Too many failed sign-in attempts/);

    // The owner's browser, with its device cookie: signed in.
    const back = await laptop.post('/api/auth/sign-in/email', { email: owner.email, password: owner.password });
    expect(back.status).toBe(200);
    expect((await laptop.get('/api/me')).body.email).toBe(owner.email);
    // ...and the attacker is still throttled afterwards.
    expect((await attack(owner.email, 1))[0]).toBe(429);

    const alerts = (await mailTo(owner.email)).filter((message) => /trying to sign in/.test(message.subject));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.text).toMatch(/Email me a sign-in link/);
  });

  it('gives a device cookie its own small failure budget, and binds it to its account', async () => {
    const owner = await t.signUp();
    const other = await t.signUp();
    const browser = t.client();
    await browser.post('/api/auth/sign-in/email', { email: owner.email, password: owner.password });
    await attack(owner.email, LOGIN_FAILURE_LIMIT);

    // A stolen device cookie: evaluated, but only DEVICE_FAILURE_LIMIT times, then throttled like anyone.
    const thief = t.client();
    const deviceCookie = /layerline\.device=[^;]+/.exec(browser.cookieHeader())![0];
    for (let i = 0; i < DEVICE_FAILURE_LIMIT; i++) {
      const guess = await thief.post('/api/auth/sign-in/email', { email: owner.email, password: `thief guess ${i}` }, { cookie: deviceCookie });
      expect(guess.status).toBe(401);
    }
    expect((await thief.post('/api/auth/sign-in/email', { email: owner.email, password: 'thief guess x' }, { cookie: deviceCookie })).status).toBe(429);

    // The device cookie of another account, or a forged one, is no way around the limit.
    const otherBrowser = t.client();
    await otherBrowser.post('/api/auth/sign-in/email', { email: other.email, password: other.password });
    const otherCookie = /layerline\.device=[^;]+/.exec(otherBrowser.cookieHeader())![0];
    expect((await t.client().post('/api/auth/sign-in/email', { email: owner.email, password: owner.password }, { cookie: otherCookie })).status).toBe(429);
    const forged = deviceCookie.replace(/\.[^.]+$/, '.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect((await t.client().post('/api/auth/sign-in/email', { email: owner.email, password: owner.password }, { cookie: forged })).status).toBe(429);
  });

  it('signs the owner in with a fresh emailed link while throttled; the link works once only', async () => {
    const owner = await t.signUp();
    await attack(owner.email, LOGIN_FAILURE_LIMIT);
    expect((await t.client().post('/api/auth/sign-in/email', { email: owner.email, password: owner.password })).status).toBe(429);

    const phone = t.client();
    const asked = await phone.post('/api/auth/sign-in/email-link', { email: owner.email.toUpperCase() });
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ status: true });
    const links = (await mailTo(owner.email)).filter((message) => /sign-in link/.test(message.subject));
    expect(links).toHaveLength(1);
    const url = new URL(/https?:\/\/\S+/.exec(links[0]!.text)![0]);
    expect(url.origin).toBe(t.baseUrl);
    expect(url.pathname).toBe('/login');
    const token = new URLSearchParams(url.hash.slice(1)).get('link')!;
    // Only a hash of the token is stored.
    const stored = await t.context.db.select({ identifier: verification.identifier, value: verification.value }).from(verification);
    expect(JSON.stringify(stored)).not.toContain(token);

    const signedIn = await phone.post('/api/auth/sign-in/email-link/verify', { token });
    expect(signedIn.status).toBe(200);
    expect((await phone.get('/api/me')).body.email).toBe(owner.email);
    expect(phone.cookieHeader()).toMatch(/layerline\.device=v1\./);
    // The browser that used the link is now a known device: its password works despite the throttle.
    expect((await phone.post('/api/auth/sign-in/email', { email: owner.email, password: owner.password })).status).toBe(200);

    const again = await t.client().post('/api/auth/sign-in/email-link/verify', { token });
    expect(again.status).toBe(401);
    expect(again.body.error).toMatch(/invalid, already used or expired/);
    // The password still works (unlike better-auth's magicLink, our link takes nothing away).
    expect((await t.context.users.passwordHash(owner.userId))).toMatch(/^\$argon2id\$/);
  });

  it('refuses an expired link, mails nothing for unknown addresses, and caps links per address', async () => {
    const owner = await t.signUp();
    await t.client().post('/api/auth/sign-in/email-link', { email: owner.email });
    const [mail] = (await mailTo(owner.email)).filter((message) => /sign-in link/.test(message.subject));
    const token = new URLSearchParams(new URL(/https?:\/\/\S+/.exec(mail!.text)![0]).hash.slice(1)).get('link')!;
    // 15 minutes later:
    await t.context.db
      .update(verification)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(like(verification.identifier, 'sign-in-link:%'));
    expect((await t.client().post('/api/auth/sign-in/email-link/verify', { token })).status).toBe(401);

    const nobody = `nobody-${Date.now()}@example.test`;
    const unknown = await t.client().post('/api/auth/sign-in/email-link', { email: nobody });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ status: true });
    expect(await mailTo(nobody)).toEqual([]);

    for (let i = 0; i < LINK_SEND_LIMIT + 2; i++) {
      expect((await t.client().post('/api/auth/sign-in/email-link', { email: owner.email })).status).toBe(200);
    }
    expect((await mailTo(owner.email)).filter((message) => /sign-in link/.test(message.subject))).toHaveLength(LINK_SEND_LIMIT);

    expect((await t.client().post('/api/auth/sign-in/email-link', { email: owner.email, role: 'admin' })).status).toBe(400);
    expect((await t.client().post('/api/auth/sign-in/email-link/verify', {})).status).toBe(400);
  });
});

/** Just enough of an SMTP server to receive messages (no TLS offered, any sender and recipient). */
async function fakeSmtpServer(): Promise<{ port: number; messages: string[]; close(): Promise<void> }> {
  const messages: string[] = [];
  const server = net.createServer((socket) => {
    socket.setEncoding('utf8');
    socket.write('220 fake ESMTP\r\n');
    let buffer = '';
    let body: string[] | null = null;
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (body) {
          if (line === '.') {
            messages.push(body.join('\n'));
            body = null;
            socket.write('250 queued\r\n');
          } else body.push(line.startsWith('..') ? line.slice(1) : line);
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-fake\r\n250 8BITMIME\r\n');
        else if (verb === 'DATA') {
          body = [];
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, messages, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('mail through SMTP (SMTP_URL)', () => {
  it('sends the sign-in link through the configured SMTP server, and the link signs in', async () => {
    const smtp = await fakeSmtpServer();
    const app = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Print Farm <farm@example.test>' });
    try {
      const owner = await app.signUp();
      expect((await app.client().post('/api/auth/sign-in/email-link', { email: owner.email })).status).toBe(200);
      expect(smtp.messages).toHaveLength(1);
      const raw = smtp.messages[0]!;
      expect(raw).toMatch(new RegExp(`^To: ${owner.email.replace(/[.+]/g, '\\$&')}$`, 'm'));
      expect(raw).toMatch(/^From: Print Farm <farm@example\.test>$/m);
      // Quoted-printable soft breaks and escapes undone.
      const text = raw.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      const token = /#link=([A-Za-z0-9_-]+)/.exec(text)![1]!;
      const browser = app.client();
      expect((await browser.post('/api/auth/sign-in/email-link/verify', { token })).status).toBe(200);
      expect((await browser.get('/api/me')).body.email).toBe(owner.email);
      // Nothing went to the local outbox.
      expect(fs.existsSync(path.join(app.context.config.dataDir, 'outbox'))).toBe(false);
    } finally {
      await app.close();
      await smtp.close();
    }
  });
});
