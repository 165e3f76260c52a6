import { EMAIL_VAR_NAME } from '@layerline/contracts';

/** The send dialog's variables, one `name=value` a line (blank lines skipped; a value may hold `=`). */
export function parseVars(text: string): { vars: Record<string, string> } | { error: string } {
  const vars: Record<string, string> = {};
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf('=');
    const name = at < 0 ? line : line.slice(0, at).trim();
    if (at < 0 || !EMAIL_VAR_NAME.test(name)) {
      return { error: `Line ${index + 1} of the variables is not name=value (names are letters, digits and _)` };
    }
    vars[name] = line.slice(at + 1).trim();
  }
  return { vars };
}
