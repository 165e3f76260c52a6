import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueEmail, type TestApp } from '../../../test/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('sign-up, sessions and the signed-in user', () => {
  it('answers 401 "No logged-in user" without a session', async () => {
    for (const [method, path] of [
      ['GET', '/api/me'],
      ['POST', '/api/check-user'],
      ['GET', '/api/dashboard'],
      ['GET', '/api/admin/users'],
    ] as const) {
      const response = await t.client().request(method, path, method === 'POST' ? {} : undefined, {});
      expect(response.status, path).toBe(401);
      expect(response.body).toEqual({ error: 'No logged-in user' });
    }
  });

  it('signs up, reads the account, and logs out for good', async () => {
    const seller = await t.signUp({ name: 'Sam Seller', extra: { businessName: 'Sam Makes' } });
    const me = await seller.get('/api/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      email: seller.email,
      name: 'Sam Seller',
      businessName: 'Sam Makes',
      role: 'seller',
      isAdmin: false,
      isBetaTester: false,
      isInternal: false,
    });
    const cookieBefore = seller.cookieHeader();
    expect((await seller.post('/api/auth/sign-out', {})).status).toBe(200);
    // The old cookie replayed after logout is refused (SESS-2).
    const replay = await t.client().get('/api/me', { cookie: cookieBefore });
    expect(replay.status).toBe(401);
  });

  it('issues a new session token at every login (SESS-1)', async () => {
    const seller = await t.signUp();
    const first = seller.cookieHeader();
    const again = t.client();
    await again.post('/api/auth/sign-in/email', { email: seller.email, password: seller.password });
    expect(again.cookieHeader()).not.toBe(first);
    expect(again.cookieHeader()).toMatch(/layerline\.session_token=[^;]{32,}/);
  });

  it('stores passwords as argon2id with m=19456, t=2, p=1 (AUTH-3)', async () => {
    const seller = await t.signUp();
    const hash = await t.context.users.passwordHash(seller.userId);
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('accepts a bearer token as well as the cookie', async () => {
    const seller = await t.signUp();
    const login = await t.client().post('/api/auth/sign-in/email', { email: seller.email, password: seller.password });
    const token = login.headers.get('set-auth-token');
    expect(token).toBeTruthy();
    const api = t.client();
    api.bearer = token!;
    const me = await api.get('/api/me');
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(seller.email);
  });

  it('keeps ?ref= affiliate codes given at sign-up', async () => {
    const seller = await t.signUp({ extra: { affiliateRef: 'MAKER42' } });
    expect((await seller.get('/api/me')).body.affiliateRef).toBe('MAKER42');
  });

  it('does not let sign-up set the role or flags (mass assignment)', async () => {
    const email = uniqueEmail('sneaky');
    const response = await t
      .client()
      .post('/api/auth/sign-up/email', { email, password: 'another sturdy passphrase', name: 'S', role: 'admin', isBetaTester: true });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/Unknown field: role, isBetaTester/);
    expect(await t.context.users.findIdByEmail(email)).toBeUndefined();
  });
});

describe('password rules (AUTH-1, AUTH-2)', () => {
  const cases: Array<[string, string, boolean]> = [
    ['7 characters', 'abcdefg', false],
    ['8 characters', 'qz8#kLm2', true],
    ['64 characters', 'x'.repeat(60) + 'Q7!z', true],
    ['128 characters', 'k'.repeat(124) + 'Q7!z', true],
    ['129 characters', 'k'.repeat(125) + 'Q7!z', false],
    ['a common password', 'password123', false],
    ['a common password in other case', 'PASSWORD123', false],
    ['unicode with trailing spaces', 'pässwörd ünïcode  ', true],
  ];
  for (const [label, password, accepted] of cases) {
    it(`${accepted ? 'accepts' : 'refuses'} ${label}`, async () => {
      const email = uniqueEmail('pw');
      const response = await t.client().post('/api/auth/sign-up/email', { email, password, name: 'Pat' });
      if (accepted) {
        expect(response.status).toBe(200);
        // Byte-exact: the same password signs in, a trimmed one does not.
        const ok = await t.client().post('/api/auth/sign-in/email', { email, password });
        expect(ok.status).toBe(200);
        if (password !== password.trim()) {
          const trimmed = await t.client().post('/api/auth/sign-in/email', { email, password: password.trim() });
          expect(trimmed.status).toBe(401);
        }
      } else {
        expect(response.status).toBe(400);
        expect(typeof response.body.error).toBe('string');
        expect(response.body.error.length).toBeGreaterThan(5);
      }
    });
  }

  it('applies the same rules to a password change, and a change logs out other sessions', async () => {
    const seller = await t.signUp();
    const otherDevice = t.client();
    await otherDevice.post('/api/auth/sign-in/email', { email: seller.email, password: seller.password });
    expect((await otherDevice.get('/api/me')).status).toBe(200);

    const weak = await seller.post('/api/auth/change-password', { currentPassword: seller.password, newPassword: 'qwerty123' });
    expect(weak.status).toBe(400);

    const wrongCurrent = await seller.post('/api/auth/change-password', {
      currentPassword: 'not my password at all',
      newPassword: 'a brand new passphrase',
    });
    expect(wrongCurrent.status).toBeGreaterThanOrEqual(400);

    const changed = await seller.post('/api/auth/change-password', {
      currentPassword: seller.password,
      newPassword: 'a brand new passphrase',
      revokeOtherSessions: true,
    });
    expect(changed.status).toBe(200);
    expect((await otherDevice.get('/api/me')).status).toBe(401);
    const login = await t.client().post('/api/auth/sign-in/email', { email: seller.email, password: 'a brand new passphrase' });
    expect(login.status).toBe(200);
  });
});

describe('account settings', () => {
  it('updates name, business name and the return address', async () => {
    const seller = await t.signUp();
    const address = {
      name: 'Sam Seller',
      company: 'Sam Makes',
      line1: '1 Filament Way',
      line2: '',
      city: 'Austin',
      region: 'TX',
      postalCode: '78701',
      country: 'US',
      phone: '',
    };
    const response = await seller.patch('/api/me', { name: 'Samantha', businessName: 'Sam Makes LLC', returnAddress: address });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'Samantha', businessName: 'Sam Makes LLC', returnAddress: address });
    expect((await seller.get('/api/dashboard')).body.accountComplete).toBe(true);
  });

  it('rejects unknown fields and bad values with a readable 400, changing nothing', async () => {
    const seller = await t.signUp({ name: 'Unchanged' });
    for (const body of [{ role: 'admin' }, { isBetaTester: true }, { name: '' }, { returnAddress: { country: 'USA' } }]) {
      const response = await seller.patch('/api/me', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toEqual(expect.any(String));
    }
    const me = (await seller.get('/api/me')).body;
    expect(me).toMatchObject({ name: 'Unchanged', role: 'seller', isBetaTester: false });
  });

  it('changes the email only with the current password', async () => {
    const seller = await t.signUp();
    const other = await t.signUp();
    const newEmail = uniqueEmail('moved');
    expect((await seller.post('/api/me/email', { newEmail, currentPassword: 'wrong password here' })).status).toBe(403);
    expect((await seller.post('/api/me/email', { newEmail: other.email, currentPassword: seller.password })).status).toBe(409);
    const ok = await seller.post('/api/me/email', { newEmail, currentPassword: seller.password });
    expect(ok.status).toBe(200);
    expect(ok.body.email).toBe(newEmail);
    expect((await t.client().post('/api/auth/sign-in/email', { email: newEmail, password: seller.password })).status).toBe(200);
  });
});

describe('admins', () => {
  it('answers checkUser with the admin flag', async () => {
    const seller = await t.signUp();
    const admin = await t.signUp({ role: 'admin' });
    expect((await seller.post('/api/check-user', {})).body).toEqual({ isAdmin: false });
    expect((await admin.post('/api/check-user', {})).body).toEqual({ isAdmin: true });
  });

  it('lets admins search users and set flags, auditing every change', async () => {
    const admin = await t.signUp({ role: 'admin' });
    const seller = await t.signUp({ name: 'Findable Fiona' });
    const found = await admin.get('/api/admin/users?search=findable');
    expect(found.status).toBe(200);
    expect(found.body.items.map((u: { id: string }) => u.id)).toContain(seller.userId);

    const flagged = await admin.patch(`/api/admin/users/${seller.userId}`, { isBetaTester: true, isInternal: true });
    expect(flagged.status).toBe(200);
    expect(flagged.body).toMatchObject({ isBetaTester: true, isInternal: true, role: 'seller' });
    expect((await seller.get('/api/me')).body).toMatchObject({ isBetaTester: true, isInternal: true });

    const audit = await admin.get('/api/admin/audit?limit=10');
    const entry = audit.body.entries.find(
      (e: { action: string; targetUserId: string }) => e.action === 'user.flags-changed' && e.targetUserId === seller.userId,
    );
    expect(entry).toMatchObject({ actorId: admin.userId, actorEmail: admin.email });
    expect(entry.detail.after).toMatchObject({ isBetaTester: true, isInternal: true });
  });

  it('refuses admin routes to sellers and beta testers', async () => {
    const seller = await t.signUp({ role: 'beta' });
    const target = await t.signUp();
    expect((await seller.get('/api/admin/users')).status).toBe(403);
    expect((await seller.patch(`/api/admin/users/${target.userId}`, { isAdmin: true })).status).toBe(403);
    expect((await seller.patch(`/api/admin/users/${seller.userId}`, { isAdmin: true })).status).toBe(403);
    expect((await seller.get('/api/admin/audit')).status).toBe(403);
    expect((await seller.get('/api/me')).body.role).toBe('seller');
  });

  it('keeps at least one admin', async () => {
    const fresh = await startTestApp();
    try {
      const onlyAdmin = await fresh.signUp({ role: 'admin' });
      const response = await onlyAdmin.patch(`/api/admin/users/${onlyAdmin.userId}`, { isAdmin: false });
      expect(response.status).toBe(409);
    } finally {
      await fresh.close();
    }
  });

  it('starts new accounts as beta testers when NEW_USERS_BETA is on (a local install)', async () => {
    const local = await startTestApp({ NEW_USERS_BETA: 'true' });
    try {
      const fresh = await local.signUp();
      expect((await fresh.get('/api/me')).body.isBetaTester).toBe(true);
      expect((await fresh.post('/api/shops/sandbox/connect', {})).status).toBe(200);
    } finally {
      await local.close();
    }
  });

  it('makes ADMIN_EMAILS admins at sign-up', async () => {
    const email = uniqueEmail('configured-admin');
    const configured = await startTestApp({ ADMIN_EMAILS: `someone@else.test, ${email.toUpperCase()}` });
    try {
      const admin = await configured.signUp({ email });
      expect((await admin.post('/api/check-user', {})).body.isAdmin).toBe(true);
    } finally {
      await configured.close();
    }
  });
});
