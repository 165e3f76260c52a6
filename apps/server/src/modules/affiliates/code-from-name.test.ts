import { affiliateCodeProblem } from '@layerline/contracts';
import { describe, expect, it } from 'vitest';
import { codeFromName } from './affiliate-service.ts';

describe('a code from a name', () => {
  it.each([
    ['Ada Lovelace', 'ada-lovelace'],
    ["Ada's Prints & Co.", 'adas-prints-co'],
    ['Émile Zoë', 'emile-zoe'],
    ['Al', 'maker-al'],
    ['王小明', 'maker'],
    ['Admin', 'maker-admin'],
    ['The Very Long Business Name Of A Print Shop', 'the-very-long-business'],
  ])('%s → %s, a valid code', (name, code) => {
    expect(codeFromName(name)).toBe(code);
    expect(affiliateCodeProblem(codeFromName(name))).toBeNull();
  });
});
