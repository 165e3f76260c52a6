import { productInputSchema, type DesignList, type Product, type ProductInput } from '@layerline/contracts';

/** The product editor's state: what the seller is typing, before it is valid input. */

export interface PartDraft {
  key: string;
  printConfigId: string;
  quantity: string;
}

export interface VariantDraft {
  key: string;
  /** The stored variant's id (kept on save, so its listings stay linked); absent for a new one. */
  id?: string;
  name: string;
  sku: string;
  packaging: string;
  parts: PartDraft[];
}

export interface ProductDraft {
  name: string;
  description: string;
  variants: VariantDraft[];
}

/** A print configuration a part can be printed from, with what one piece costs. */
export interface ConfigOption {
  printConfigId: string;
  designId: string;
  designName: string;
  configName: string;
  unitCostUsd: number | null;
}

/** The id of the <datalist> of packaging suggestions the editors' packaging fields share. */
export const PACKAGING_LIST_ID = 'packaging-suggestions';

let nextKey = 0;
const newKey = (): string => `k${++nextKey}`;

export const emptyPart = (printConfigId = ''): PartDraft => ({ key: newKey(), printConfigId, quantity: '1' });

export const emptyVariant = (name = ''): VariantDraft => ({
  key: newKey(),
  name,
  sku: '',
  packaging: 'standard',
  parts: [emptyPart()],
});

export const emptyDraft = (): ProductDraft => ({ name: '', description: '', variants: [emptyVariant('Standard')] });

export function draftFromProduct(product: Product): ProductDraft {
  return {
    name: product.name,
    description: product.description,
    variants: product.variants.map((v) => ({
      key: newKey(),
      id: v.id,
      name: v.name,
      sku: v.sku,
      packaging: v.packaging,
      parts: v.parts.map((p) => ({ key: newKey(), printConfigId: p.printConfigId, quantity: String(p.quantity) })),
    })),
  };
}

/** Every configuration of the seller's designs, and those the product already uses (which may be older than the list). */
export function configOptions(designs: DesignList | undefined, product?: Product): ConfigOption[] {
  const options = new Map<string, ConfigOption>();
  for (const design of designs?.items ?? []) {
    for (const config of design.printConfigs) {
      options.set(config.id, {
        printConfigId: config.id,
        designId: design.id,
        designName: design.name,
        configName: config.name,
        unitCostUsd: config.quote?.costUsd ?? null,
      });
    }
  }
  for (const variant of product?.variants ?? []) {
    for (const part of variant.parts) {
      if (!options.has(part.printConfigId)) options.set(part.printConfigId, { ...part });
    }
  }
  return [...options.values()];
}

const cents = (usd: number): number => Math.round(usd * 100) / 100;

/**
 * What one unit of the variant costs as typed: the sum of its parts' quotes × quantities (the
 * server computes the same from the same quotes). Null while a part is unpriced or incomplete.
 */
export function variantCost(variant: VariantDraft, options: readonly ConfigOption[]): number | null {
  let total = 0;
  for (const part of variant.parts) {
    const option = options.find((o) => o.printConfigId === part.printConfigId);
    const quantity = Number(part.quantity);
    if (!option || option.unitCostUsd === null || !Number.isInteger(quantity) || quantity < 1) return null;
    total += option.unitCostUsd * quantity;
  }
  return variant.parts.length > 0 ? cents(total) : null;
}

export type DraftResult = { ok: true; input: ProductInput } | { ok: false; message: string };

/** The draft as API input, checked with the same schema the server uses; the first problem in words. */
export function draftToInput(draft: ProductDraft): DraftResult {
  const candidate = {
    name: draft.name,
    description: draft.description,
    variants: draft.variants.map((v) => ({
      ...(v.id ? { id: v.id } : {}),
      name: v.name,
      sku: v.sku,
      packaging: v.packaging.trim() || 'standard',
      parts: v.parts.map((p) => ({ printConfigId: p.printConfigId, quantity: Number(p.quantity) })),
    })),
  };
  for (const [index, variant] of draft.variants.entries()) {
    const label = variant.name.trim() || `Variant ${index + 1}`;
    if (variant.parts.some((p) => !p.printConfigId)) return { ok: false, message: `${label}: choose a print configuration for every part` };
    if (variant.parts.some((p) => !/^\d+$/.test(p.quantity.trim()) || Number(p.quantity) < 1)) {
      return { ok: false, message: `${label}: each part's quantity must be a whole number of at least 1` };
    }
  }
  const skus = draft.variants.map((v) => v.sku.trim()).filter(Boolean);
  const repeated = skus.find((sku, index) => skus.indexOf(sku) !== index);
  if (repeated) return { ok: false, message: `SKU “${repeated}” is used by two variants. Each variant needs its own SKU.` };
  const parsed = productInputSchema.safeParse(candidate);
  if (parsed.success) return { ok: true, input: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, message: issue ? `${describePath(issue.path, draft)}${issue.message}` : 'Check the product' };
}

function describePath(path: readonly PropertyKey[], draft: ProductDraft): string {
  const [first, index, field] = path;
  if (first === 'name') return 'Name: ';
  if (first === 'description') return 'Description: ';
  if (first === 'variants' && typeof index === 'number') {
    const label = draft.variants[index]?.name.trim() || `Variant ${index + 1}`;
    return typeof field === 'string' ? `${label} ${field === 'sku' ? 'SKU' : field}: ` : `${label}: `;
  }
  return '';
}
