/** §2: a `?ref=CODE` on any URL is kept locally as affiliateRef and sent along at sign-up. */
export const AFFILIATE_REF_STORAGE_KEY = 'affiliateRef';

/** Affiliate codes are short identifiers; anything else in `ref` is ignored rather than stored. */
const AFFILIATE_CODE_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export function captureAffiliateRef(search: string): void {
  const ref = new URLSearchParams(search).get('ref')?.trim();
  if (!ref || !AFFILIATE_CODE_PATTERN.test(ref)) return;
  try {
    localStorage.setItem(AFFILIATE_REF_STORAGE_KEY, ref);
  } catch {
    // Storage blocked: the referral is lost, which is not worth interrupting the visitor for.
  }
}

export function storedAffiliateRef(): string | undefined {
  try {
    return localStorage.getItem(AFFILIATE_REF_STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}
