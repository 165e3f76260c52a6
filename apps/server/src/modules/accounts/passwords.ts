import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';

/** ASVS 5 Appendix C / OWASP: argon2id, 19 MiB, 2 iterations, 1 lane. */
/** `Algorithm.Argon2id` is an ambient const enum, which erasable TypeScript cannot read; its value is 2. */
const ARGON2ID = 2;
const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2_OPTIONS);

export async function verifyPassword({ hash: stored, password }: { hash: string; password: string }): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false; // a malformed stored hash never authenticates
  }
}

/**
 * ~49k most common passwords (zxcvbn's list). Compared case-insensitively so "Password1"
 * is refused as well as "password1"; the password itself is never case-folded when stored.
 */
let commonPasswords: Set<string> | undefined;
function commonPasswordSet(): Set<string> {
  commonPasswords ??= new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));
  return commonPasswords;
}

/** Why a new password is refused, or null when it is acceptable (AUTH-1, AUTH-2). */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `Password must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `Password must be at most ${PASSWORD_MAX_LENGTH} characters`;
  if (commonPasswordSet().has(password.toLowerCase())) {
    return 'This password is too common. Please choose one that is harder to guess';
  }
  return null;
}
