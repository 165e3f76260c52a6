import type { Platform } from '@layerline/contracts';
import type { CredentialConnector, OAuthConnector, ShopConnector } from './connector.ts';

/**
 * Which module speaks to which marketplace. Integrations register themselves in app-context
 * (`shopConnectors.register(connector, oauthConnector?, credentialConnector?)`); the shops module
 * looks them up by platform and never imports an integration. Registering a platform again
 * replaces it (tests register fakes this way).
 */
export function createConnectorRegistry() {
  const shops = new Map<Platform, ShopConnector>();
  const oauth = new Map<Platform, OAuthConnector>();
  const credentials = new Map<Platform, CredentialConnector>();
  return {
    register(
      connector: ShopConnector,
      oauthConnector?: OAuthConnector,
      credentialConnector?: CredentialConnector,
    ): void {
      shops.set(connector.platform, connector);
      if (oauthConnector) oauth.set(oauthConnector.platform, oauthConnector);
      else oauth.delete(connector.platform);
      if (credentialConnector) credentials.set(credentialConnector.platform, credentialConnector);
      else credentials.delete(connector.platform);
    },
    shop(platform: string): ShopConnector | undefined {
      return shops.get(platform as Platform);
    },
    oauth(platform: string): OAuthConnector | undefined {
      return oauth.get(platform as Platform);
    },
    /** Platforms that can be connected now. */
    platforms(): Platform[] {
      return [...shops.keys()];
    },
    credentials(platform: string): CredentialConnector | undefined {
      return credentials.get(platform as Platform);
    },
    oauthPlatforms(): Platform[] {
      return [...oauth.keys()];
    },
  };
}

export type ConnectorRegistry = ReturnType<typeof createConnectorRegistry>;
