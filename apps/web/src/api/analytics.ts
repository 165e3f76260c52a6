import type { PageViewInput } from '@layerline/contracts';
import { apiFetch } from './client.ts';

/** POST /api/analytics/page-views. Analytics must never break a page, so failures are only logged. */
export function recordPageView(view: PageViewInput): void {
  apiFetch('/api/analytics/page-views', { method: 'POST', json: view, keepalive: true }).catch(
    (error: unknown) => {
      console.warn('Page view not recorded', error);
    },
  );
}
