import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { auditLog, printer } from '../../db/schema.ts';

/**
 * Issue 21: a printer whose address the host policy forbids was saved as active and refused only
 * when called. The policy (integrations/http-client/printer-host-policy.ts) now answers when the
 * address is saved, on create and on edit: 422 naming connection.baseUrl, nothing written.
 * Started without PRINTER_ALLOW_LOOPBACK (the default).
 */
let t: TestApp;
let admin: SignedInClient;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.signUp({ role: 'admin' });
}, 60_000);
afterAll(async () => t?.close());

const octoprint = (baseUrl: string, name = 'Policy check') => ({
  name,
  buildVolumeMm: { x: 250, y: 210, z: 220 },
  nozzleMm: 0.4,
  connection: { kind: 'octoprint', baseUrl, apiKey: 'key-123' },
});
const put = (client: SignedInClient, path: string, body: unknown) => client.request<any>('PUT', path, body, {});
const printersNamed = async (name: string) => (await t.context.db.select().from(printer).where(eq(printer.name, name))).length;

const FORBIDDEN: Array<[string, RegExp]> = [
  ['http://169.254.169.254', /link-local, multicast or reserved/],
  ['http://[fe80::1]:8080', /link-local, multicast or reserved/],
  ['http://224.0.0.1', /link-local, multicast or reserved/],
  ['http://0.0.0.0:5000', /link-local, multicast or reserved/],
  ['http://127.0.0.1:7125', /this server itself/],
  ['http://[::1]', /this server itself/],
  ['http://localhost:5000', /this server itself/],
  ['http://[::ffff:169.254.169.254]', /link-local/],
];

describe('printer addresses checked when saved (issue 21)', () => {
  it('refuses a forbidden address on create with 422 naming connection.baseUrl, and saves nothing', async () => {
    for (const [baseUrl, reason] of FORBIDDEN) {
      const name = `Forbidden ${baseUrl}`;
      const answer = await admin.post('/api/admin/printers', octoprint(baseUrl, name));
      expect(answer.status, baseUrl).toBe(422);
      expect(answer.body.error, baseUrl).toMatch(/^connection\.baseUrl: the printer's address is refused: /);
      expect(answer.body.error, baseUrl).toMatch(reason);
      expect(await printersNamed(name), baseUrl).toBe(0);
    }
  });

  it('refuses a forbidden address on edit and keeps the stored one; allowed farm addresses save', async () => {
    const created = await admin.post('/api/admin/printers', octoprint('http://192.168.1.20', 'Farm LAN printer'));
    expect(created.status).toBe(201);
    const path = `/api/admin/printers/${created.body.id}`;
    for (const [baseUrl, reason] of FORBIDDEN) {
      const edited = await put(admin, path, { ...octoprint(baseUrl, 'Farm LAN printer'), connection: { kind: 'octoprint', baseUrl } });
      expect(edited.status, baseUrl).toBe(422);
      expect(edited.body.error, baseUrl).toMatch(/^connection\.baseUrl: /);
      expect(edited.body.error, baseUrl).toMatch(reason);
    }
    expect((await admin.get(path)).body.connection).toEqual({ kind: 'octoprint', baseUrl: 'http://192.168.1.20' });
    const audited = await t.context.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.action, 'printer.update'));
    expect(audited).toEqual([]);

    // Private, CGNAT/VPN and public addresses are where printers live.
    for (const baseUrl of ['http://10.0.0.7:7125', 'http://100.64.1.2', 'https://203.0.113.9', 'http://[fd00::5]']) {
      const edited = await put(admin, path, { ...octoprint(baseUrl, 'Farm LAN printer'), connection: { kind: 'octoprint', baseUrl } });
      expect(edited.status, baseUrl).toBe(200);
      expect(edited.body.connection.baseUrl).toBe(baseUrl);
    }
  });
});
