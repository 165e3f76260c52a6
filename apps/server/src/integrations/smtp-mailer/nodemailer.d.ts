// The little of nodemailer (which ships no types) that smtp-mailer.ts uses.
declare module 'nodemailer' {
  interface Transport {
    sendMail(message: { from: string; to: string; subject: string; text: string; html?: string; headers?: Record<string, string> }): Promise<unknown>;
    close(): void;
  }
  const nodemailer: { createTransport(url: string): Transport };
  export default nodemailer;
}
