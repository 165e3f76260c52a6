import { contactMessageSchema, type ContactMessageInput } from '@layerline/contracts';
import { firstErrorPerField } from '../../../components/field-errors.ts';

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
  return { ok: false, errors: firstErrorPerField(result.error, Object.keys(EMPTY_CONTACT_MESSAGE) as ContactField[]) };
}
