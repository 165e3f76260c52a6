import { manualOrderInputSchema, shippingAddressInputSchema, type ShippingAddress } from '@layerline/contracts';
import type { ManualOrderRequest } from '../../../api/order-api.ts';

export type AddressField = keyof ShippingAddress;

export interface ItemLine {
  key: number;
  sku: string;
  /** As typed; validated as a whole number 1–1000. */
  quantity: string;
}

export const ADDRESS_FIELDS: readonly {
  name: AddressField;
  label: string;
  required?: boolean;
  autoComplete?: string;
}[] = [
  { name: 'name', label: 'Recipient name', required: true, autoComplete: 'shipping name' },
  { name: 'company', label: 'Company', autoComplete: 'shipping organization' },
  { name: 'line1', label: 'Street address', required: true, autoComplete: 'shipping address-line1' },
  { name: 'line2', label: 'Apartment, suite…', autoComplete: 'shipping address-line2' },
  { name: 'city', label: 'City', required: true, autoComplete: 'shipping address-level2' },
  { name: 'region', label: 'State / region', autoComplete: 'shipping address-level1' },
  { name: 'postalCode', label: 'Postal code', required: true, autoComplete: 'shipping postal-code' },
  {
    name: 'country',
    label: 'Country (2 letters, e.g. US)',
    required: true,
    autoComplete: 'shipping country',
  },
  { name: 'phone', label: 'Phone', autoComplete: 'shipping tel' },
  { name: 'email', label: 'Email', autoComplete: 'shipping email' },
];

export const EMPTY_ADDRESS: Record<AddressField, string> = {
  name: '',
  company: '',
  line1: '',
  line2: '',
  city: '',
  region: '',
  postalCode: '',
  country: '',
  phone: '',
  email: '',
};

/**
 * Checks the form with the same schemas the server uses; errors are keyed by field path
 * (`shippingAddress.city`, `items.0.sku`, `items`, `note`) so each shows under its field.
 */
export function validateManualOrder(
  lines: readonly ItemLine[],
  address: Record<AddressField, string>,
  note: string,
): { input: ManualOrderRequest | null; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const items = lines.map((line, index) => {
    const quantity = Number(line.quantity);
    if (!line.sku.trim()) errors[`items.${index}.sku`] = 'Choose a product';
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > 1000)
      errors[`items.${index}.quantity`] = '1 to 1000';
    return { sku: line.sku.trim(), quantity };
  });
  if (items.length === 0) errors.items = 'Add at least one item';
  const parsedAddress = shippingAddressInputSchema.safeParse(address);
  if (!parsedAddress.success) {
    for (const issue of parsedAddress.error.issues) {
      const key = `shippingAddress.${String(issue.path[0])}`;
      errors[key] ??=
        issue.path[0] === 'email' ? 'Enter a valid email address, or leave it empty' : issue.message;
    }
  }
  if (Object.keys(errors).length > 0 || !parsedAddress.success) return { input: null, errors };
  const parsed = manualOrderInputSchema.safeParse({ items, shippingAddress: parsedAddress.data, note });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors[issue.path.join('.') || 'items'] ??= issue.message;
    return { input: null, errors };
  }
  return {
    input: { items: parsed.data.items, shippingAddress: parsed.data.shippingAddress, note: parsed.data.note },
    errors,
  };
}
