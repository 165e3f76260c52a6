import nodemailer from 'nodemailer';
import type { Mailer } from '../../modules/notifications/mailer.ts';

/**
 * Mail through an SMTP server (SMTP_URL: `smtp://user:pass@host:587` upgrades with STARTTLS when
 * the server offers it, `smtps://…:465` is TLS from the start), with nodemailer — no dependencies
 * of its own. A send that fails throws: callers decide whether that fails their request.
 */
export function createSmtpMailer(options: { url: string; from: string }): Mailer & { close(): void } {
  const transport = nodemailer.createTransport(options.url);
  return {
    kind: 'smtp',
    async send(message) {
      await transport.sendMail({
        from: options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.html ? { html: message.html } : {}),
        ...(message.headers ? { headers: { ...message.headers } } : {}),
      });
    },
    close: () => transport.close(),
  };
}
