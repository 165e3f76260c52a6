/**
 * Sending email: the port the modules use (sign-in links, security alerts). Implemented in
 * integrations/ — the local outbox (development and the embedded default: each message written
 * under the data directory and logged), or SMTP when SMTP_URL is set — chosen in app-context.ts.
 */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  /** Plain text; links on their own line. */
  readonly text: string;
  /** The same message as HTML (the notifications' emails), sent as the text's alternative. */
  readonly html?: string;
  /** Extra headers, e.g. List-Unsubscribe and List-Unsubscribe-Post (RFC 8058). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Mailer {
  /** Names the implementation in logs and at start ("outbox", "smtp"). */
  readonly kind: string;
  send(message: MailMessage): Promise<void>;
}
