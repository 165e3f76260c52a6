import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_TESTIMONIAL } from '@layerline/contracts';
import { startTestApp, type TestApp } from '../../../test/test-app.ts';
import { auditLog } from '../../db/schema.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('contact form', () => {
  it('stores a visitor’s message and lists it for admins only', async () => {
    const message = { name: 'Vera Visitor', email: 'vera@example.test', subject: 'Bulk order', message: 'Can you print 500 planters?' };
    const sent = await t.client().post('/api/contact', message);
    expect(sent.status).toBe(201);
    expect(sent.body.id).toEqual(expect.any(String));

    const seller = await t.signUp();
    expect((await seller.get('/api/admin/contact-messages')).status).toBe(403);
    const admin = await t.signUp({ role: 'admin' });
    const listed = await admin.get('/api/admin/contact-messages');
    expect(listed.status).toBe(200);
    expect(listed.body.messages).toContainEqual(expect.objectContaining({ ...message, id: sent.body.id, userId: null }));
  });

  it('links a signed-in sender’s message to the account', async () => {
    const seller = await t.signUp();
    const sent = await seller.post('/api/contact', { name: 'S', email: seller.email, subject: 'Hi', message: 'A question about PETG.' });
    const admin = await t.signUp({ role: 'admin' });
    const listed = await admin.get('/api/admin/contact-messages');
    expect(listed.body.messages.find((m: { id: string }) => m.id === sent.body.id).userId).toBe(seller.userId);
  });

  it('refuses invalid messages with a readable error', async () => {
    for (const bad of [
      { name: '', email: 'a@b.test', subject: 's', message: 'long enough text' },
      { name: 'n', email: 'not-an-email', subject: 's', message: 'long enough text' },
      { name: 'n', email: 'a@b.test', subject: 's', message: 'short' },
      { name: 'n', email: 'a@b.test', subject: 's', message: 'long enough text', userId: 'someone' },
    ]) {
      const response = await t.client().post('/api/contact', bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(response.body.error).toEqual(expect.any(String));
    }
  });

  it('limits each address to a few messages per 10 minutes', async () => {
    const limited = await startTestApp({}, { contactPer10Minutes: 2 });
    try {
      const message = { name: 'Spam', email: 'spam@example.test', subject: 'Buy', message: 'Cheap followers here' };
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await limited.client().post('/api/contact', message)).status);
      expect(statuses).toEqual([201, 201, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('the landing testimonial', () => {
  const real = {
    quote: 'Layerline prints and ships every order while I design the next collection.',
    author: 'Mira Okafor',
    byline: 'Owner, Okafor Objects',
    shopName: 'Okafor Objects on Etsy',
    shopUrl: 'https://www.etsy.com/shop/OkaforObjects',
  };

  it('shows the sample, marked as such, until an admin sets a real one; a reset brings the sample back', async () => {
    const visitor = t.client();
    const before = await visitor.get('/api/site/testimonial');
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ testimonial: SAMPLE_TESTIMONIAL, sample: true, updatedAt: null });

    const admin = await t.signUp({ role: 'admin' });
    const set = await admin.request<any>('PUT', '/api/admin/site/testimonial', real, {});
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ testimonial: { ...real }, sample: false });
    const shown = await visitor.get('/api/site/testimonial');
    expect(shown.body).toEqual({ testimonial: real, sample: false, updatedAt: set.body.updatedAt });

    expect((await admin.delete('/api/admin/site/testimonial')).status).toBe(204);
    expect((await visitor.get('/api/site/testimonial')).body.sample).toBe(true);
    const audited = await t.context.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.actorId, admin.userId)));
    expect(audited.map((a) => a.action)).toEqual(expect.arrayContaining(['site.testimonial-set', 'site.testimonial-reset']));
  });

  it('is set by admins only, and refuses bad input with a readable error', async () => {
    const seller = await t.signUp();
    expect((await seller.request('PUT', '/api/admin/site/testimonial', real, {})).status).toBe(403);
    expect((await seller.delete('/api/admin/site/testimonial')).status).toBe(403);
    expect((await t.client().request('PUT', '/api/admin/site/testimonial', real, {})).status).toBe(401);
    const admin = await t.signUp({ role: 'admin' });
    expect((await admin.request('PUT', '/api/admin/site/testimonial', real, {})).status).toBe(200);
    for (const bad of [
      { ...real, quote: 'short' },
      { ...real, author: '' },
      { ...real, shopUrl: 'http://www.etsy.com/shop/x' },
      { ...real, shopUrl: 'javascript:alert(1)' },
      { ...real, isSample: false },
    ]) {
      const response = await admin.request<any>('PUT', '/api/admin/site/testimonial', bad, {});
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual(expect.any(String));
    }
    // Nothing of the refused input was stored.
    expect((await t.client().get('/api/site/testimonial')).body).toMatchObject({ testimonial: real, sample: false });
    expect((await admin.delete('/api/admin/site/testimonial')).status).toBe(204);
  });
});

describe('page views', () => {
  it('records views from anyone and charts them for admins', async () => {
    const visitor = t.client();
    for (const path of ['/pricing', '/pricing', '/our-story']) {
      expect((await visitor.post('/api/analytics/page-views', { title: 'Pricing | Layerline', path })).status).toBe(204);
    }
    const admin = await t.signUp({ role: 'admin' });
    const stats = await admin.get('/api/admin/analytics/page-views?days=7');
    expect(stats.status).toBe(200);
    expect(stats.body.days).toHaveLength(7);
    expect(stats.body.days.at(-1).day).toBe(new Date().toISOString().slice(0, 10));
    expect(stats.body.total).toBe(3);
    expect(stats.body.topPaths[0]).toEqual({ path: '/pricing', views: 2 });
    const seller = await t.signUp();
    expect((await seller.get('/api/admin/analytics/page-views')).status).toBe(403);
  });

  it('refuses paths that are not app paths', async () => {
    expect((await t.client().post('/api/analytics/page-views', { title: 'x', path: 'https://evil.example' })).status).toBe(400);
  });
});

describe('public configuration and the API description', () => {
  it('exposes only public settings, with the spec’s sample rates', async () => {
    const config = await t.client().get('/api/config');
    expect(config.body).toEqual({
      mode: 'test',
      sentryDsn: null,
      analyticsKey: null,
      stripePublishableKey: null,
      monitoringSampleRates: { session: 0.2, replay: 0.1, trace: 0.2 },
    });
  });

  it('serves an OpenAPI document describing the routes', async () => {
    const doc = await t.client().get('/api/docs/json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    for (const path of ['/api/me', '/api/check-user', '/api/contact', '/api/admin/users/{id}', '/api/dashboard']) {
      expect(Object.keys(doc.body.paths)).toContain(path);
    }
  });
});
