import { changeEmailSchema } from '@layerline/contracts';

/** Password rules of the identity service: 8–128 characters (common passwords are refused server-side). */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

export type FieldErrors<Field extends string> = Partial<Record<Field, string>>;

const emailSchema = changeEmailSchema.shape.newEmail;

export function emailError(email: string): string | undefined {
  if (!email.trim()) return 'Enter your email address';
  const result = emailSchema.safeParse(email.trim());
  return result.success
    ? undefined
    : (result.error.issues[0]?.message ?? 'Please enter a valid email address');
}

export function newPasswordError(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters`;
  return undefined;
}

export interface SignUpFields {
  name: string;
  businessName: string;
  email: string;
  password: string;
}

export function validateSignUp(fields: SignUpFields): FieldErrors<keyof SignUpFields> {
  const errors: FieldErrors<keyof SignUpFields> = {};
  if (!fields.name.trim()) errors.name = 'Tell us your name';
  else if (fields.name.trim().length > 120) errors.name = 'Use at most 120 characters';
  if (fields.businessName.trim().length > 120) errors.businessName = 'Use at most 120 characters';
  const email = emailError(fields.email);
  if (email) errors.email = email;
  const password = newPasswordError(fields.password);
  if (password) errors.password = password;
  return errors;
}

export interface SignInFields {
  email: string;
  password: string;
}

export function validateSignIn(fields: SignInFields): FieldErrors<keyof SignInFields> {
  const errors: FieldErrors<keyof SignInFields> = {};
  const email = emailError(fields.email);
  if (email) errors.email = email;
  if (!fields.password) errors.password = 'Enter your password';
  return errors;
}

export function hasErrors(errors: object): boolean {
  return Object.values(errors).some(Boolean);
}
