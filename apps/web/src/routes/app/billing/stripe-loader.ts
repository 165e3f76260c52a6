import { useEffect, useState } from 'react';
import type { Stripe } from '@stripe/stripe-js';
import { loadStripe } from '@stripe/stripe-js/pure';

/**
 * Stripe.js, loaded from js.stripe.com (Stripe requires it be loaded from there) the first time a page
 * needs it, with the publishable key the server names: only the card form and the authentication page
 * import this module, each as its own chunk, so no other page downloads Stripe.
 */
const loads = new Map<string, Promise<Stripe | null>>();

function stripeFor(publishableKey: string): Promise<Stripe | null> {
  let stripe = loads.get(publishableKey);
  if (!stripe) {
    stripe = loadStripe(publishableKey);
    // A failed load (offline, blocked) may be tried again on the next visit rather than cached.
    stripe.catch(() => loads.delete(publishableKey));
    loads.set(publishableKey, stripe);
  }
  return stripe;
}

/** Stripe.js for this key, or why it cannot be had (no key configured, js.stripe.com unreachable). */
export function useLoadedStripe(publishableKey: string | null): { stripe: Stripe | null } | { error: string } {
  const [loaded, setLoaded] = useState<{ key: string; result: { stripe: Stripe } | { error: string } } | null>(null);
  useEffect(() => {
    if (!publishableKey) return;
    let current = true;
    const unreachable = { error: 'Stripe could not be reached. Check your connection and reload the page.' };
    stripeFor(publishableKey).then(
      (stripe) => current && setLoaded({ key: publishableKey, result: stripe ? { stripe } : unreachable }),
      () => current && setLoaded({ key: publishableKey, result: unreachable }),
    );
    return () => {
      current = false;
    };
  }, [publishableKey]);
  if (!publishableKey) return { error: 'Stripe is not set up on this server (no publishable key).' };
  return loaded?.key === publishableKey ? loaded.result : { stripe: null };
}
