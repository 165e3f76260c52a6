import { describe, expect, it } from 'vitest';
import type { Product } from '@layerline/contracts';
import { draftFromProduct, draftToInput, emptyDraft, emptyPart, variantCost, type ConfigOption } from './product-draft.ts';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const options: ConfigOption[] = [
  { printConfigId: A, designId: 'd1', designName: 'Cube', configName: 'PLA', unitCostUsd: 0.51 },
  { printConfigId: B, designId: 'd1', designName: 'Cube', configName: 'PETG', unitCostUsd: null },
];

describe('the product draft', () => {
  it('costs a variant as the sum of its parts’ quotes × quantities', () => {
    const draft = emptyDraft();
    const variant = draft.variants[0]!;
    variant.parts = [{ ...emptyPart(A), quantity: '3' }];
    expect(variantCost(variant, options)).toBe(1.53);
    variant.parts.push(emptyPart(B));
    expect(variantCost(variant, options)).toBeNull();
    variant.parts = [{ ...emptyPart(A), quantity: 'x' }];
    expect(variantCost(variant, options)).toBeNull();
  });

  it('turns into API input, keeping variant ids, or names the first problem', () => {
    const product: Product = {
      id: 'p',
      ownerId: 'o',
      name: 'Cube set',
      description: '',
      createdAt: '',
      updatedAt: '',
      variants: [
        {
          id: '33333333-3333-4333-8333-333333333333',
          name: 'Pair',
          sku: 'CUBE-2',
          packaging: 'kit',
          parts: [{ printConfigId: A, designId: 'd1', designName: 'Cube', configName: 'PLA', quantity: 2, unitCostUsd: 0.51 }],
          unitCostUsd: 1.02,
          linkedListings: 0,
        },
      ],
    };
    const draft = draftFromProduct(product);
    const result = draftToInput(draft);
    expect(result).toEqual({
      ok: true,
      input: {
        name: 'Cube set',
        description: '',
        variants: [{ id: '33333333-3333-4333-8333-333333333333', name: 'Pair', sku: 'CUBE-2', packaging: 'kit', parts: [{ printConfigId: A, quantity: 2 }] }],
      },
    });
    draft.variants[0]!.sku = 'has space';
    expect(draftToInput(draft)).toMatchObject({ ok: false, message: expect.stringMatching(/^Pair SKU: SKU may use/) });
    draft.variants.push({ ...draft.variants[0]!, id: undefined, key: 'x', sku: 'has space' });
    expect(draftToInput(draft)).toMatchObject({ ok: false, message: expect.stringContaining('used by two variants') });
    const empty = emptyDraft();
    expect(draftToInput(empty)).toMatchObject({ ok: false, message: expect.stringContaining('choose a print configuration') });
  });
});
