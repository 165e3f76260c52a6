import { describe, expect, it } from 'vitest';
import { parseVars } from './email-vars.ts';

describe('the send dialog’s variables', () => {
  it('reads name=value lines, skipping blank ones and keeping = in values', () => {
    expect(parseVars('name = Ada\n\nurl=https://x.test/?a=1\n')).toEqual({ vars: { name: 'Ada', url: 'https://x.test/?a=1' } });
    expect(parseVars('')).toEqual({ vars: {} });
  });

  it('names the line that is not a variable', () => {
    expect(parseVars('name=Ada\njust text')).toEqual({ error: expect.stringContaining('Line 2') });
    expect(parseVars('1abc=x')).toEqual({ error: expect.stringContaining('Line 1') });
  });
});
