import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { createOutboxMailer } from '../../integrations/outbox-mailer/outbox-mailer.ts';
import { ADDRESS_FAILURE_LIMIT, LINK_ACCOUNT_SEND_LIMIT, LINK_SEND_LIMIT, LOGIN_FAILURE_LIMIT } from './login-throttle.ts';

/**
 * Issue 21: without SMTP_URL (no emailed sign-in link) one address sending wrong passwords kept a
 * seller out of every new browser, an hour at a time, for as long as it kept going. One address
 * now counts at most ADDRESS_FAILURE_LIMIT failures an hour against an account (then it alone is
 * refused), and an admin can end a throttling episode at once. Runs without SMTP_URL (the outbox).
 */
let t: TestApp;
let admin: SignedInClient;
beforeAll(async () => {
  // One trusted proxy hop: X-Forwarded-For stands for each caller's address.
  t = await startTestApp({ TRUST_PROXY_HOPS: '1' });
  admin = await t.signUp({ role: 'admin' });
}, 60_000);
afterAll(async () => t?.close());

const signIn = (email: string, password: string, address: string) =>
  t.client().post('/api/auth/sign-in/email', { email, password }, { 'x-forwarded-for': address });

describe('one address cannot keep an account throttled (issue 21)', () => {
  it('refuses the address after its share, and the owner signs in from a new browser elsewhere', async () => {
    const owner = await t.signUp();
    const attacker = '203.0.113.66';
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_FAILURE_LIMIT + 10; i++) statuses.push((await signIn(owner.email, `guess ${i}`, attacker)).status);
    expect(statuses.slice(0, ADDRESS_FAILURE_LIMIT)).toEqual(Array(ADDRESS_FAILURE_LIMIT).fill(401));
    expect(new Set(statuses.slice(ADDRESS_FAILURE_LIMIT))).toEqual(new Set([429]));

    const refused = await signIn(owner.email, owner.password, attacker);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.error).toMatch(/from your network/);

    expect(await t.context.loginThrottle.retryAfterSeconds(owner.email)).toBe(0);
    const ownersNewBrowser = await signIn(owner.email, owner.password, '198.51.100.20');
    expect(ownersNewBrowser.status).toBe(200);
  });

  it('counts an IPv6 /64 as one address', async () => {
    const owner = await t.signUp();
    for (let i = 0; i < ADDRESS_FAILURE_LIMIT; i++) {
      expect((await signIn(owner.email, `guess ${i}`, `2001:db8:5:7::${(i + 1).toString(16)}`)).status).toBe(401);
    }
    expect((await signIn(owner.email, 'another guess', '2001:db8:5:7:ffff::1')).status).toBe(429);
    expect((await signIn(owner.email, owner.password, '2001:db8:5:8::1')).status).toBe(200);
  });
});

describe('one address cannot use up the owner\'s sign-in links (issue 21)', () => {
  const linksTo = async (email: string) =>
    (await createOutboxMailer(path.join(t.context.config.dataDir, 'outbox'), () => undefined).list()).filter(
      (message) => message.to === email && /sign-in link/.test(message.subject),
    );
  const askLink = (email: string, address: string) =>
    t.client().post('/api/auth/sign-in/email-link', { email }, { 'x-forwarded-for': address });

  it('mails at most LINK_SEND_LIMIT links an hour per address and LINK_ACCOUNT_SEND_LIMIT in all, and the owner still gets one', async () => {
    const owner = await t.signUp();
    for (let i = 0; i < LINK_SEND_LIMIT + 3; i++) expect((await askLink(owner.email, '203.0.113.90')).body).toEqual({ status: true });
    expect(await linksTo(owner.email)).toHaveLength(LINK_SEND_LIMIT);

    expect((await askLink(owner.email, '198.51.100.40')).status).toBe(200);
    const links = await linksTo(owner.email);
    expect(links).toHaveLength(LINK_SEND_LIMIT + 1);
    const token = /#link=([A-Za-z0-9_-]+)/.exec(links.at(-1)!.text)?.[1];
    expect((await t.client().post('/api/auth/sign-in/email-link/verify', { token })).status).toBe(200);

    // Many addresses together: the owner's mailbox gets at most LINK_ACCOUNT_SEND_LIMIT an hour.
    for (let i = 0; i < LINK_ACCOUNT_SEND_LIMIT; i++) await askLink(owner.email, `192.0.2.${i + 1}`);
    expect(await linksTo(owner.email)).toHaveLength(LINK_ACCOUNT_SEND_LIMIT);
  });
});

describe('an admin unlocks sign-in (issue 21)', () => {
  it('shows the pause, ends it with an audit entry, and the owner signs in from a new browser', async () => {
    const owner = await t.signUp();
    // Many addresses, each within its share, throttle the account.
    for (let i = 0; i < LOGIN_FAILURE_LIMIT; i++) await t.context.loginThrottle.recordFailure(owner.email, `198.18.${Math.floor(i / ADDRESS_FAILURE_LIMIT)}.1`);
    expect((await signIn(owner.email, owner.password, '192.0.2.10')).status).toBe(429);

    const listed = await admin.get(`/api/admin/users?search=${encodeURIComponent(owner.email)}`);
    const row = listed.body.items.find((u: { id: string }) => u.id === owner.userId);
    expect(Date.parse(row.signInThrottledUntil)).toBeGreaterThan(Date.now());

    expect((await owner.post(`/api/admin/users/${owner.userId}/unlock-sign-in`)).status).toBe(403);
    expect((await t.client().post(`/api/admin/users/${owner.userId}/unlock-sign-in`)).status).toBe(401);
    const missing = await admin.post('/api/admin/users/no-such-user/unlock-sign-in');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: expect.any(String) });
    for (const hostile of ['a%00b', '%E2%80%AE', 'a%20b']) {
      const refused = await admin.post(`/api/admin/users/${hostile}/unlock-sign-in`);
      expect(refused.status, hostile).toBe(400);
      expect(refused.body.error, hostile).toMatch(/id/);
    }

    const unlocked = await admin.post(`/api/admin/users/${owner.userId}/unlock-sign-in`);
    expect(unlocked.status).toBe(200);
    expect(unlocked.body).toMatchObject({ failuresCleared: LOGIN_FAILURE_LIMIT, user: { id: owner.userId, signInThrottledUntil: null } });

    const audit = await admin.get('/api/admin/audit?limit=20');
    const entry = audit.body.entries.find((e: { action: string; targetUserId: string }) => e.action === 'user.sign-in-unlocked' && e.targetUserId === owner.userId);
    expect(entry).toMatchObject({ actorId: admin.userId, detail: { failuresCleared: LOGIN_FAILURE_LIMIT, wasThrottledUntil: row.signInThrottledUntil } });

    expect((await signIn(owner.email, owner.password, '192.0.2.10')).status).toBe(200);
    // Unlocking an account that is not throttled forgets nothing and is still audited.
    expect((await admin.post(`/api/admin/users/${owner.userId}/unlock-sign-in`)).body.failuresCleared).toBe(0);
  });

  it('also forgets the addresses that spent their share', async () => {
    const owner = await t.signUp();
    for (let i = 0; i < ADDRESS_FAILURE_LIMIT; i++) await signIn(owner.email, `guess ${i}`, '203.0.113.80');
    expect((await signIn(owner.email, owner.password, '203.0.113.80')).status).toBe(429);
    expect((await admin.post(`/api/admin/users/${owner.userId}/unlock-sign-in`)).body.failuresCleared).toBe(ADDRESS_FAILURE_LIMIT);
    expect((await signIn(owner.email, owner.password, '203.0.113.80')).status).toBe(200);
  });
});
