import type { PublicConfig } from '@layerline/contracts';
import { apiFetch } from './client.ts';

/** GET /api/config: public, non-secret settings (monitoring keys and sample rates). */
export function fetchPublicConfig(): Promise<PublicConfig> {
  return apiFetch<PublicConfig>('/api/config');
}
