/** What a form needs of a failed zod parse (structural, so the web app needs no zod import of its own). */
interface ParseIssues {
  readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[];
}

/**
 * The first problem of each of `fields`, named by the issue path's element at `depth` (1 for a
 * form that edits one nested object of the body), to show under the field.
 */
export function firstErrorPerField<F extends string>(
  error: ParseIssues,
  fields: readonly F[],
  depth = 0,
): Partial<Record<F, string>> {
  const errors: Partial<Record<F, string>> = {};
  for (const issue of error.issues) {
    const field = issue.path[depth];
    if (typeof field === 'string' && (fields as readonly string[]).includes(field)) errors[field as F] ??= issue.message;
  }
  return errors;
}
