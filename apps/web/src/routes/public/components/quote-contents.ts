/** What a quote includes and leaves out: the same words on the How It Works and Pricing pages. */
export const QUOTE_INCLUDES = [
  'The filament your design uses, weighed from the model in the material you pick',
  'Printing on our farm, including supports and the time the print takes',
  'Removing supports and checking each print before it is packed',
  'Packing it to survive the post',
  'Buying the shipping label and sending the tracking number back to your marketplace (the postage itself is charged separately)',
] as const;

export const QUOTE_EXCLUDES = [
  'Shipping fees: charged for the label your order actually needs',
  'Taxes: whatever applies where the order is sold and delivered',
  'Add-on services such as assembly, inserts, magnets or custom packaging, which are quoted per design',
] as const;
