import { contactMessageSchema, type ContactMessageInput } from '@layerline/contracts';

export type ContactField = keyof ContactMessageInput;
export type ContactFieldErrors = Partial<Record<ContactField, string>>;

/** The toast after a message was stored. */
export const CONTACT_SUCCESS_MESSAGE = 'Thanks! We’ll get back to you soon.';

export const EMPTY_CONTACT_MESSAGE: ContactMessageInput = { name: '', email: '', subject: '', message: '' };

/**
 * Checks the form with the same schema the server uses, so a message that passes here is not
 * rejected there. Gives the cleaned message, or the first problem of each field.
 */
export function validateContactMessage(
  values: ContactMessageInput,
): { ok: true; message: ContactMessageInput } | { ok: false; errors: ContactFieldErrors } {
  const result = contactMessageSchema.safeParse(values);
  if (result.success) return { ok: true, message: result.data };
  const errors: ContactFieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && field in EMPTY_CONTACT_MESSAGE && !errors[field as ContactField]) {
      errors[field as ContactField] = issue.message;
    }
  }
  return { ok: false, errors };
}
