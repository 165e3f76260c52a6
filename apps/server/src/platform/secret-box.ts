import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for secrets we must be able to read back (OAuth tokens, marketplace keys,
 * webhook secrets): AES-256-GCM with a random 96-bit nonce per value, and associated data binding
 * the ciphertext to where it is stored (table, row, owner, purpose), so a value copied to another
 * row or user does not decrypt. Keys are derived from APP_SECRET (kept outside the database) per
 * key version; the version is stored with the ciphertext so keys can be rotated.
 *
 * Format: v<keyVersion>.<nonce b64url>.<ciphertext b64url>.<tag b64url>
 */
export interface SecretBox {
  seal(plaintext: string, context: SecretContext): string;
  open(sealed: string, context: SecretContext): string;
}

export interface SecretContext {
  readonly table: string;
  readonly rowId: string;
  readonly ownerId: string;
  readonly purpose: string;
}

export class SecretBoxError extends Error {}

const CURRENT_VERSION = 1;

function keyFor(appSecret: string, version: number): Buffer {
  return Buffer.from(hkdfSync('sha256', appSecret, 'layerline-secret-box', `v${version}`, 32));
}

const aad = (c: SecretContext): Buffer => Buffer.from(JSON.stringify([c.table, c.rowId, c.ownerId, c.purpose]));

export function createSecretBox(appSecret: string): SecretBox {
  const keys = new Map<number, Buffer>([[CURRENT_VERSION, keyFor(appSecret, CURRENT_VERSION)]]);
  return {
    seal(plaintext, context) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keys.get(CURRENT_VERSION)!, nonce);
      cipher.setAAD(aad(context));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [`v${CURRENT_VERSION}`, nonce.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [version, nonce, body, tag] = sealed.split('.');
      const key = keys.get(Number(version?.slice(1)));
      if (!key || !nonce || body === undefined || !tag) throw new SecretBoxError('Unreadable sealed secret');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
        decipher.setAAD(aad(context));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch (error) {
        throw new SecretBoxError('A sealed secret failed its integrity check', { cause: error });
      }
    },
  };
}
