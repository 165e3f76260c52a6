import {
  ShippingAuthError,
  ShippingRejectedError,
  type ShippoAccountCalls,
} from '../../modules/shipping/shipping-provider.ts';
import type { HttpClient } from '../http-client/http-client.ts';
import { REFUSAL_STATUSES, shippoErrorText, transportError } from './shippo-errors.ts';
import { shippoTokenResponse } from './shippo-mapping.ts';

/**
 * Shippo's partner OAuth (https://docs.goshippo.com/docs/oauth_integrations/oauth/; not part of
 * public-api.yaml). The seller is sent to `/oauth/authorize?response_type=code&client_id=…&scope=*&state=…`
 * ("*" is the only scope), comes back to our /shippo-oauth-redirect with `code` and `state`, and the
 * code is exchanged at `POST /oauth/access_token` (form: client_id, client_secret, code,
 * grant_type=authorization_code) for `{ access_token: "oauth.…", token_type: "bearer", scope: "*" }`.
 * The token does not expire and there is no refresh. The redirect URL is the one registered with
 * Shippo, so it is not sent.
 */

export interface ShippoOAuthOptions {
  readonly http: HttpClient;
  /** https://goshippo.com (its origin must be on the http client's allowlist). */
  readonly authorizeBaseUrl: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
}

export type ShippoOAuth = Pick<ShippoAccountCalls, 'authorizeUrl' | 'exchangeCode'>;

export const createShippoOAuth = (options: ShippoOAuthOptions): ShippoOAuth => {
  const configured = (): { clientId: string; clientSecret: string } => {
    if (!options.clientId || !options.clientSecret)
      throw new ShippingRejectedError('Shippo OAuth is not configured on this server', 503);
    return { clientId: options.clientId, clientSecret: options.clientSecret };
  };

  const authorizeUrl = (state: string): string => {
    const url = new URL('/oauth/authorize', options.authorizeBaseUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: configured().clientId,
      scope: '*',
      state,
    }).toString();
    return url.toString();
  };

  const exchangeCode = async (code: string): Promise<{ accessToken: string }> => {
    const { clientId, clientSecret } = configured();
    if (!code.trim()) throw new ShippingAuthError('Shippo sent no authorization code');
    const response = await options.http
      .request({
        method: 'POST',
        url: new URL('/oauth/access_token', options.authorizeBaseUrl),
        operation: 'exchangeShippoToken',
        form: new URLSearchParams({
          client_id: clientId,
          client_secret: clientSecret,
          code,
          grant_type: 'authorization_code',
        }),
        acceptStatuses: REFUSAL_STATUSES,
      })
      .catch((error: unknown) => {
        throw transportError(error);
      });
    // A used, expired or foreign code (400 invalid_grant) means the seller must connect again.
    if (response.status >= 400) {
      const why = shippoErrorText(response.body);
      throw new ShippingAuthError(
        `Shippo refused the authorization code (${response.status})${why ? `: ${why}` : ''}`,
      );
    }
    const parsed = shippoTokenResponse.safeParse(response.body);
    if (!parsed.success)
      throw new ShippingRejectedError('Shippo answered the token exchange without an access token', 502);
    return { accessToken: parsed.data.access_token };
  };

  return { authorizeUrl, exchangeCode };
};
