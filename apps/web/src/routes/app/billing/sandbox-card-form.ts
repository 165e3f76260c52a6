import type { SandboxCardInput } from '@layerline/contracts';

/**
 * The sandbox card form (test mode only): what it shows while typing and what it sends. It checks
 * only that each field is filled in the right shape; whether the card is valid (Luhn, expiry in the
 * future, CVC length) is the sandbox's answer, as it would be Stripe's.
 */

export type CardField = 'number' | 'expiry' | 'cvc';

export interface CardDraft {
  number: string;
  expiry: string;
  cvc: string;
}

/** Stripe's public test numbers the sandbox knows, with what each does. */
export const SANDBOX_TEST_CARDS: readonly { number: string; behaviour: string }[] = [
  { number: '4242 4242 4242 4242', behaviour: 'Succeeds' },
  { number: '4000 0000 0000 0002', behaviour: 'Declined' },
  { number: '4000 0000 0000 9995', behaviour: 'Declined: insufficient funds' },
  { number: '4000 0025 0000 3155', behaviour: 'Needs authentication' },
];

/** "4242424242424242" → "4242 4242 4242 4242" (at most 19 digits, as card numbers go). */
export function formatCardNumber(typed: string): string {
  const digits = typed.replace(/\D/g, '').slice(0, 19);
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** "1", "12", "123" → "1", "12 / ", "12 / 3": the slash appears once the month is typed. */
export function formatExpiry(typed: string, previous: string): string {
  const digits = typed.replace(/\D/g, '').slice(0, 4);
  // Deleting the slash deletes the month's last digit rather than leaving the field stuck.
  if (typed.length < previous.length && previous.endsWith(' / ') && digits.length === 2) return digits.slice(0, 1);
  if (digits.length < 2) return digits;
  return `${digits.slice(0, 2)} / ${digits.slice(2)}`;
}

/** The request to send, or the first problem of each field to show under it. */
export function parseCardDraft(
  draft: CardDraft,
): { ok: true; input: SandboxCardInput } | { ok: false; errors: Partial<Record<CardField, string>> } {
  const errors: Partial<Record<CardField, string>> = {};
  const cardNumber = draft.number.replace(/\D/g, '');
  if (cardNumber.length < 12) errors.number = 'Enter the card number';
  const expiry = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(draft.expiry);
  const expMonth = expiry ? Number(expiry[1]) : 0;
  const yearText = expiry?.[2] ?? '';
  if (!expiry || expMonth < 1 || expMonth > 12) errors.expiry = 'Enter the expiry as MM / YY';
  const cvc = draft.cvc.trim();
  if (!/^\d{3,4}$/.test(cvc)) errors.cvc = 'Enter the 3 or 4 digit CVC';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const expYear = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  return { ok: true, input: { cardNumber, expMonth, expYear, cvc } };
}
