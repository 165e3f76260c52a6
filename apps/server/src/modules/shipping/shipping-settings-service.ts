import { randomBytes } from 'node:crypto';
import type {
  ShipStationKeys,
  ShippingIntegration,
  ShippingProfile,
  ShippingProfileInput,
  ShippingSettings,
  ShippoConnection,
  StoreShipStationKeysInput,
} from '@layerline/contracts';
import { AppError, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { ShippingCredentials } from './shipping-provider.ts';
import { providerError, type ShippingProviders } from './shipping-providers.ts';
import type { SellerShippingRow, ShippingProfileRow, ShippingRepository } from './shipping-repository.ts';

/** Who acts (the signed-in user) and for which seller (themselves, or a seller an admin acts for). */
export interface ShippingActor {
  readonly id: string;
  readonly isAdmin: boolean;
  readonly requestId?: string;
}

export interface OAuthStates {
  insert(input: { state: string; ownerId: string; platform: string; codeVerifier: string; shopHost: string | null; expiresAt: Date }): Promise<void>;
  consume(state: string, ownerId: string, platform: string): Promise<unknown>;
}

const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

/** The farm's first profile, made at start when there is none (an admin edits it on /shipping-profiles). */
export const STARTER_PROFILE: ShippingProfileInput = {
  name: 'Standard',
  handlingDays: 1,
  promiseLabel: 'Standard',
  promiseDays: 5,
  origin: {
    name: 'Layerline print farm',
    company: 'Layerline',
    line1: '1 Printer Way',
    line2: '',
    city: 'Columbus',
    region: 'OH',
    postalCode: '43004',
    country: 'US',
    phone: '',
    email: '',
  },
  parcels: [
    { id: 'small', name: 'Small box', lengthMm: 150, widthMm: 120, heightMm: 80, tareGrams: 60, maxGrams: 2000, costCents: 45 },
    { id: 'medium', name: 'Medium box', lengthMm: 250, widthMm: 200, heightMm: 150, tareGrams: 150, maxGrams: 5000, costCents: 85 },
    { id: 'large', name: 'Large box', lengthMm: 400, widthMm: 300, heightMm: 250, tareGrams: 350, maxGrams: 15000, costCents: 160 },
  ],
  zoneServices: [],
  isDefault: true,
};

export const promiseText = (profile: Pick<ShippingProfileRow, 'promiseLabel' | 'promiseDays'>) =>
  `${profile.promiseLabel}: within ${profile.promiseDays} day${profile.promiseDays === 1 ? '' : 's'}`;

export function profileDto(row: ShippingProfileRow & { sellerCount?: number }): ShippingProfile {
  return {
    id: row.id,
    name: row.name,
    isDefault: row.isDefault,
    handlingDays: row.handlingDays,
    promiseLabel: row.promiseLabel,
    promiseDays: row.promiseDays,
    origin: row.origin,
    parcels: row.parcels,
    zoneServices: row.zoneServices.map((z) => ({ zone: z.zone as 'domestic' | 'international', carrier: z.carrier, service: z.service })),
    sellerCount: row.sellerCount ?? 0,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * A seller's shipping settings: which integration buys their labels, their ShipStation keys (checked
 * with ShipStation before they are stored), their Shippo connection (OAuth, state bound to the
 * seller), and the shipping profiles admins manage.
 */
export function createShippingSettingsService(deps: {
  repository: ShippingRepository;
  providers: ShippingProviders;
  oauthStates: OAuthStates;
  audit: AuditRepository;
  /** Where ShipStation (per seller) and Shippo (app-wide) send tracking webhooks. */
  webhookUrls: { shippo(): string; shipStation(ownerId: string): string };
}) {
  const { repository, providers, oauthStates, audit, webhookUrls } = deps;

  const auditFor = (actor: ShippingActor, ownerId: string, action: string, detail: Record<string, unknown> = {}) =>
    audit.record({ actorId: actor.id, targetUserId: ownerId, action, detail, requestId: actor.requestId });

  async function ensureDefaultProfile(): Promise<ShippingProfileRow> {
    const existing = await repository.defaultProfile();
    if (existing) return existing;
    try {
      return await repository.saveProfile(null, STARTER_PROFILE);
    } catch (error) {
      // Two processes starting at once: the other one made it.
      const made = await repository.defaultProfile();
      if (made) return made;
      throw error;
    }
  }

  async function profileFor(row: SellerShippingRow | undefined): Promise<ShippingProfileRow> {
    const assigned = row?.profileId ? await repository.findProfile(row.profileId) : undefined;
    return assigned ?? (await ensureDefaultProfile());
  }

  const integrationOf = (row: SellerShippingRow | undefined): ShippingIntegration => {
    const chosen = (row?.integration ?? 'sandbox') as ShippingIntegration;
    return chosen === 'sandbox' && !providers.sandbox ? (row?.shipstationEnc ? 'shipstation' : row?.shippoEnc ? 'shippo' : 'sandbox') : chosen;
  };

  function keysDto(row: SellerShippingRow | undefined): ShipStationKeys {
    const hint = row?.shipstationHint;
    return {
      configured: Boolean(row?.shipstationEnc && hint),
      apiVersion: hint?.apiVersion ?? null,
      apiKeyLast4: hint?.apiKeyLast4 ?? null,
      apiSecretLast4: hint?.apiSecretLast4 ?? null,
      updatedAt: row?.shipstationUpdatedAt?.toISOString() ?? null,
    };
  }

  const shippoDto = (row: SellerShippingRow | undefined): ShippoConnection => ({
    available: providers.shippoOAuth,
    connected: Boolean(row?.shippoEnc),
    connectedAt: row?.shippoConnectedAt?.toISOString() ?? null,
  });

  async function settings(ownerId: string): Promise<ShippingSettings> {
    const row = await repository.settingsOf(ownerId);
    const profile = await profileFor(row);
    return {
      integration: integrationOf(row),
      sandboxAvailable: providers.sandbox !== null,
      shipStation: keysDto(row),
      shippo: shippoDto(row),
      profile: { id: profile.id, name: profile.name, promise: promiseText(profile) },
      shipStationWebhookUrl: webhookUrls.shipStation(ownerId),
    };
  }

  return {
    ensureDefaultProfile,
    settings,
    /** The integration, credentials and profile the farm uses for this seller's labels. */
    async shippingFor(ownerId: string): Promise<{ integration: ShippingIntegration; credentials: ShippingCredentials | null; profile: ShippingProfileRow }> {
      const row = await repository.settingsOf(ownerId);
      const integration = integrationOf(row);
      return { integration, credentials: repository.credentialsFor(row, integration), profile: await profileFor(row) };
    },

    async credentialsOf(ownerId: string, provider: 'shipstation' | 'shippo'): Promise<ShippingCredentials> {
      const credentials = repository.credentialsFor(await repository.settingsOf(ownerId), provider);
      if (!credentials)
        throw new AppError('conflict', provider === 'shipstation' ? 'No ShipStation keys are saved for this seller (Account settings → Shipping)' : 'Shippo is not connected for this seller (Account settings → Shipping)');
      return credentials;
    },

    /** The spec's setShippingIntegration: only an integration that is connected can be chosen. */
    async setIntegration(actor: ShippingActor, ownerId: string, integration: ShippingIntegration): Promise<ShippingSettings> {
      const row = await repository.settingsOf(ownerId);
      if (integration === 'sandbox' && !providers.sandbox) throw new AppError('conflict', 'The sandbox carrier is turned off on this server');
      if (integration === 'shipstation' && !row?.shipstationEnc) throw new AppError('conflict', 'Save your ShipStation API keys first');
      if (integration === 'shippo' && !row?.shippoEnc) throw new AppError('conflict', 'Connect your Shippo account first');
      await repository.setIntegration(ownerId, integration);
      await auditFor(actor, ownerId, 'shipping.integration-set', { integration });
      return settings(ownerId);
    },

    /** The spec's storeShipStationKeys: checked with ShipStation first; keys it refuses are not stored. */
    async storeShipStationKeys(actor: ShippingActor, ownerId: string, input: StoreShipStationKeysInput): Promise<ShipStationKeys> {
      const credentials: Extract<ShippingCredentials, { provider: 'shipstation' }> =
        input.apiVersion === 'v2'
          ? { provider: 'shipstation', apiVersion: 'v2', apiKey: input.apiKey }
          : { provider: 'shipstation', apiVersion: 'v1', apiKey: input.apiKey, apiSecret: input.apiSecret };
      try {
        await providers.shipstation.verifyCredentials(credentials);
      } catch (error) {
        // Recorded (who tried which key), never stored.
        await auditFor(actor, ownerId, 'shipping.shipstation-keys-refused', { apiVersion: input.apiVersion, apiKeyLast4: input.apiKey.slice(-4) });
        throw providerError('shipstation', error);
      }
      await repository.storeShipStation(ownerId, credentials);
      await auditFor(actor, ownerId, 'shipping.shipstation-keys-stored', { apiVersion: input.apiVersion, apiKeyLast4: input.apiKey.slice(-4) });
      return keysDto(await repository.settingsOf(ownerId));
    },

    /** The spec's getShipStationKeys: that keys exist and their last 4 characters, never the keys. */
    async shipStationKeys(ownerId: string): Promise<ShipStationKeys> {
      return keysDto(await repository.settingsOf(ownerId));
    },

    async removeShipStationKeys(actor: ShippingActor, ownerId: string): Promise<ShipStationKeys> {
      await repository.clearShipStation(ownerId);
      const row = await repository.settingsOf(ownerId);
      if (row?.integration === 'shipstation') await repository.setIntegration(ownerId, 'sandbox');
      await auditFor(actor, ownerId, 'shipping.shipstation-keys-removed');
      return keysDto(row);
    },

    /** The spec's checkShippoConnection. */
    async shippoConnection(ownerId: string): Promise<ShippoConnection> {
      return shippoDto(await repository.settingsOf(ownerId));
    },

    /** Starts Shippo's OAuth for the signed-in seller: a state bound to them, for 10 minutes, used once. */
    async shippoAuthorizeUrl(ownerId: string): Promise<string> {
      if (!providers.shippoOAuth) throw new AppError('conflict', 'Shippo is not configured on this server (SHIPPO_CLIENT_ID and SHIPPO_CLIENT_SECRET)');
      const state = randomBytes(24).toString('base64url');
      await oauthStates.insert({ state, ownerId, platform: 'shippo', codeVerifier: '-', shopHost: null, expiresAt: new Date(Date.now() + OAUTH_STATE_TTL_MS) });
      return providers.shippo.authorizeUrl(state);
    },

    /** The spec's exchangeShippoToken: the state must be this seller's, unexpired and unused. */
    async exchangeShippoToken(actor: ShippingActor, code: string, state: string): Promise<ShippoConnection> {
      if (!providers.shippoOAuth) throw new AppError('conflict', 'Shippo is not configured on this server');
      if (!(await oauthStates.consume(state, actor.id, 'shippo')))
        throw new AppError('bad-request', 'This Shippo authorisation link has expired or was already used; connect Shippo again');
      let accessToken: string;
      try {
        ({ accessToken } = await providers.shippo.exchangeCode(code));
      } catch (error) {
        throw providerError('shippo', error);
      }
      await repository.storeShippo(actor.id, accessToken);
      await auditFor(actor, actor.id, 'shipping.shippo-connected');
      return shippoDto(await repository.settingsOf(actor.id));
    },

    /** The spec's disconnectShippo: the token is forgotten; labels already bought stay. */
    async disconnectShippo(actor: ShippingActor, ownerId: string): Promise<ShippoConnection> {
      await repository.clearShippo(ownerId);
      const row = await repository.settingsOf(ownerId);
      if (row?.integration === 'shippo') await repository.setIntegration(ownerId, 'sandbox');
      await auditFor(actor, ownerId, 'shipping.shippo-disconnected');
      return shippoDto(await repository.settingsOf(ownerId));
    },

    /* ---------- profiles (admins) ---------- */

    async listProfiles(): Promise<ShippingProfile[]> {
      await ensureDefaultProfile();
      return (await repository.listProfiles()).map(profileDto);
    },

    /** The URL admins give Shippo's dashboard for track_updated webhooks. */
    shippoWebhookUrl: () => webhookUrls.shippo(),

    async saveProfile(actor: ShippingActor, id: string | null, input: ShippingProfileInput): Promise<ShippingProfile> {
      const ids = new Set(input.parcels.map((parcel) => parcel.id));
      if (ids.size !== input.parcels.length) throw new AppError('bad-request', 'Each parcel size needs its own id');
      for (const parcel of input.parcels) {
        if (parcel.tareGrams >= parcel.maxGrams) throw new AppError('bad-request', `${parcel.name}: the empty box must weigh less than the most it may weigh packed`);
      }
      if (id !== null) {
        const existing = await repository.findProfile(id);
        if (!existing) throw notFound('Shipping profile');
        if (existing.isDefault && !input.isDefault) throw new AppError('conflict', 'Make another profile the default first');
      }
      const saved = await repository.saveProfile(id, input);
      await audit.record({ actorId: actor.id, targetUserId: null, action: id ? 'shipping.profile-updated' : 'shipping.profile-created', detail: { profileId: saved.id, name: saved.name }, requestId: actor.requestId });
      return profileDto((await repository.listProfiles()).find((p) => p.id === saved.id) ?? saved);
    },

    async deleteProfile(actor: ShippingActor, id: string): Promise<void> {
      const existing = await repository.findProfile(id);
      if (!existing) throw notFound('Shipping profile');
      if (existing.isDefault) throw new AppError('conflict', 'The default profile cannot be deleted; make another one the default first');
      await repository.deleteProfile(id);
      await audit.record({ actorId: actor.id, targetUserId: null, action: 'shipping.profile-deleted', detail: { profileId: id, name: existing.name }, requestId: actor.requestId });
    },

    async assignProfile(actor: ShippingActor, ownerId: string, profileId: string | null): Promise<ShippingSettings> {
      if (profileId && !(await repository.findProfile(profileId))) throw notFound('Shipping profile');
      await repository.assignProfile(ownerId, profileId);
      await auditFor(actor, ownerId, 'shipping.profile-assigned', { profileId });
      return settings(ownerId);
    },
  };
}

export type ShippingSettingsService = ReturnType<typeof createShippingSettingsService>;
