import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { MailMessage, Mailer } from '../../modules/notifications/mailer.ts';

export interface OutboxMessage extends MailMessage {
  readonly sentAt: string;
}

/**
 * A mailer for a local install: each message is written as JSON to `<dir>/<time>-<uuid>.json`
 * and logged (with its text, so a developer can click a sign-in link from the console). Nothing
 * leaves the machine.
 */
export function createOutboxMailer(dir: string, log: (message: OutboxMessage, file: string) => void): Mailer & {
  /** Every message in the outbox, oldest first (for tests and the CLI). */
  list(): Promise<OutboxMessage[]>;
} {
  return {
    kind: 'outbox',
    async send(message) {
      const stored: OutboxMessage = { to: message.to, subject: message.subject, text: message.text, sentAt: new Date().toISOString() };
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const file = path.join(dir, `${stored.sentAt.replace(/[:.]/g, '-')}-${randomUUID()}.json`);
      await fs.writeFile(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
      log(stored, file);
    },
    async list() {
      let names: string[];
      try {
        names = (await fs.readdir(dir)).filter((name) => name.endsWith('.json')).sort();
      } catch {
        return [];
      }
      const messages: OutboxMessage[] = [];
      for (const name of names) messages.push(JSON.parse(await fs.readFile(path.join(dir, name), 'utf8')) as OutboxMessage);
      return messages;
    },
  };
}
