import { createHmac, timingSafeEqual } from 'node:crypto';
import { EMAIL_TEMPLATE_TYPES, type EmailTemplateType } from '@layerline/contracts';

/**
 * An unsubscribe link's token: the user id and the kind of email, signed with the app secret
 * (HMAC-SHA256), so a link turns off exactly that kind for exactly that user and needs no table.
 * It does not expire: a link in a years-old email must still work (RFC 8058 asks for it).
 */
export interface UnsubscribeTarget {
  readonly userId: string;
  readonly templateType: EmailTemplateType;
}

const mac = (secret: string, userId: string, templateType: string) =>
  createHmac('sha256', secret).update(`layerline-unsubscribe:${userId}:${templateType}`).digest('base64url');

export function createUnsubscribeToken(secret: string, target: UnsubscribeTarget): string {
  return `${Buffer.from(target.userId).toString('base64url')}.${target.templateType}.${mac(secret, target.userId, target.templateType)}`;
}

/** The target of a genuine token; null for anything else (forged, truncated, another secret's). */
export function verifyUnsubscribeToken(secret: string, token: string): UnsubscribeTarget | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [encodedUser, templateType, signature] = parts as [string, string, string];
  if (!(EMAIL_TEMPLATE_TYPES as readonly string[]).includes(templateType)) return null;
  const userId = Buffer.from(encodedUser, 'base64url').toString('utf8');
  if (!userId) return null;
  const expected = Buffer.from(mac(secret, userId, templateType));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { userId, templateType: templateType as EmailTemplateType };
}
