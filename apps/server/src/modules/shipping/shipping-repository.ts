import { and, asc, count, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { ShippingIntegration, ShippingProfileInput } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { fulfillmentRecord, order, sellerShipping, shipment, shippingProfile, trackingEvent } from '../../db/schema.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import type { ShippingCredentials, TrackingInfo } from './shipping-provider.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';

export type ShipmentRow = typeof shipment.$inferSelect;
export type ShippingProfileRow = typeof shippingProfile.$inferSelect;
export type SellerShippingRow = typeof sellerShipping.$inferSelect;
export type NewShipment = Pick<
  typeof shipment.$inferInsert,
  'orderId' | 'ownerId' | 'provider' | 'attempt' | 'parcelIndex' | 'parcelCount' | 'parcel' | 'idempotencyKey' | 'currency'
>;
export type NewFulfillmentRecord = Omit<typeof fulfillmentRecord.$inferInsert, 'id' | 'createdAt' | 'shipmentId'>;

const LIVE = ['purchasing', 'purchased', 'in_transit', 'delivered'] as const;

/**
 * Shipping's tables: the sellers' settings (keys and tokens sealed with the secret box, bound to the
 * table, the seller and the provider), shipping profiles, shipments with their tracking events, and
 * the fulfilment record written with each label.
 */
export function createShippingRepository(db: Database, box: SecretBox) {
  const context = (ownerId: string, purpose: 'shipstation' | 'shippo') => ({ table: 'seller_shipping', rowId: ownerId, ownerId, purpose });

  async function upsertSettings(ownerId: string, values: Partial<typeof sellerShipping.$inferInsert>): Promise<void> {
    await db
      .insert(sellerShipping)
      .values({ ownerId, ...values })
      .onConflictDoUpdate({ target: sellerShipping.ownerId, set: { ...values, updatedAt: new Date() } });
  }

  return {
    /* ---------- settings ---------- */

    async settingsOf(ownerId: string): Promise<SellerShippingRow | undefined> {
      const [row] = await db.select().from(sellerShipping).where(eq(sellerShipping.ownerId, ownerId));
      return row;
    },

    setIntegration: (ownerId: string, integration: ShippingIntegration) => upsertSettings(ownerId, { integration }),

    assignProfile: (ownerId: string, profileId: string | null) => upsertSettings(ownerId, { profileId }),

    async storeShipStation(ownerId: string, credentials: Extract<ShippingCredentials, { provider: 'shipstation' }>): Promise<void> {
      const secret = credentials.apiVersion === 'v1' ? credentials.apiSecret : null;
      await upsertSettings(ownerId, {
        shipstationEnc: box.seal(JSON.stringify(credentials), context(ownerId, 'shipstation')),
        shipstationHint: { apiVersion: credentials.apiVersion, apiKeyLast4: credentials.apiKey.slice(-4), apiSecretLast4: secret ? secret.slice(-4) : null },
        shipstationUpdatedAt: new Date(),
      });
    },

    clearShipStation: (ownerId: string) => upsertSettings(ownerId, { shipstationEnc: null, shipstationHint: null, shipstationUpdatedAt: null }),

    storeShippo: (ownerId: string, accessToken: string) =>
      upsertSettings(ownerId, { shippoEnc: box.seal(JSON.stringify({ provider: 'shippo', accessToken }), context(ownerId, 'shippo')), shippoConnectedAt: new Date() }),

    clearShippo: (ownerId: string) => upsertSettings(ownerId, { shippoEnc: null, shippoConnectedAt: null }),

    /** The seller's credentials for a provider, unsealed for one call; null when not connected. */
    credentialsFor(row: SellerShippingRow | undefined, provider: ShippingIntegration): ShippingCredentials | null {
      if (provider === 'sandbox') return { provider: 'sandbox' };
      if (!row) return null;
      const sealed = provider === 'shipstation' ? row.shipstationEnc : row.shippoEnc;
      return sealed ? (JSON.parse(box.open(sealed, context(row.ownerId, provider))) as ShippingCredentials) : null;
    },

    /* ---------- profiles ---------- */

    async listProfiles(): Promise<(ShippingProfileRow & { sellerCount: number })[]> {
      const counts = db
        .select({ profileId: sellerShipping.profileId, n: count().as('n') })
        .from(sellerShipping)
        .groupBy(sellerShipping.profileId)
        .as('counts');
      const rows = await db
        .select({ profile: shippingProfile, n: counts.n })
        .from(shippingProfile)
        .leftJoin(counts, eq(counts.profileId, shippingProfile.id))
        .orderBy(desc(shippingProfile.isDefault), asc(shippingProfile.name), asc(shippingProfile.id));
      return rows.map((row) => ({ ...row.profile, sellerCount: Number(row.n ?? 0) }));
    },

    async findProfile(id: string): Promise<ShippingProfileRow | undefined> {
      const [row] = await db.select().from(shippingProfile).where(eq(shippingProfile.id, id));
      return row;
    },

    async defaultProfile(): Promise<ShippingProfileRow | undefined> {
      const [row] = await db.select().from(shippingProfile).where(eq(shippingProfile.isDefault, true));
      return row;
    },

    /** Writes a profile; making it the default takes the flag from the old default in the same transaction. */
    async saveProfile(id: string | null, input: ShippingProfileInput): Promise<ShippingProfileRow> {
      return db.transaction(async (tx) => {
        if (input.isDefault) await tx.update(shippingProfile).set({ isDefault: false }).where(eq(shippingProfile.isDefault, true));
        const values = {
          name: input.name,
          isDefault: input.isDefault,
          handlingDays: input.handlingDays,
          promiseLabel: input.promiseLabel,
          promiseDays: input.promiseDays,
          origin: input.origin,
          parcels: input.parcels,
          zoneServices: input.zoneServices,
        };
        if (id === null) return (await tx.insert(shippingProfile).values(values).returning())[0]!;
        const [row] = await tx.update(shippingProfile).set({ ...values, updatedAt: new Date() }).where(eq(shippingProfile.id, id)).returning();
        return row!;
      });
    },

    async deleteProfile(id: string): Promise<boolean> {
      const deleted = await db.delete(shippingProfile).where(and(eq(shippingProfile.id, id), eq(shippingProfile.isDefault, false))).returning({ id: shippingProfile.id });
      return deleted.length > 0;
    },

    /* ---------- shipments ---------- */

    async shipmentsOf(orderIds: readonly string[]): Promise<ShipmentRow[]> {
      if (orderIds.length === 0) return [];
      return db
        .select()
        .from(shipment)
        .where(inArray(shipment.orderId, [...orderIds]))
        .orderBy(asc(shipment.parcelIndex), asc(shipment.attempt), asc(shipment.createdAt));
    },

    async findShipment(id: string): Promise<ShipmentRow | undefined> {
      const [row] = await db.select().from(shipment).where(eq(shipment.id, id));
      return row;
    },

    /**
     * Claims a parcel's purchase: the row is written before the provider is asked. Answers null when
     * another purchase of this parcel is live (a double click, a retry racing the first try).
     */
    async claimPurchase(values: NewShipment, leaseMs: number): Promise<ShipmentRow | null> {
      try {
        const [row] = await db
          .insert(shipment)
          .values({ ...values, status: 'purchasing', leaseUntil: new Date(Date.now() + leaseMs) })
          .returning();
        return row!;
      } catch (error) {
        if (isUniqueViolation(error)) return null;
        throw error;
      }
    },

    /**
     * Takes over a purchase nobody is at work on (its lease ended or was given up): one request wins.
     * Answers null while the request that holds it is still at work.
     */
    async takeOverPurchase(id: string, leaseMs: number): Promise<ShipmentRow | null> {
      const now = new Date();
      const [row] = await db
        .update(shipment)
        .set({ leaseUntil: new Date(now.getTime() + leaseMs), updatedAt: now })
        .where(and(eq(shipment.id, id), eq(shipment.status, 'purchasing'), or(isNull(shipment.leaseUntil), lt(shipment.leaseUntil, now))))
        .returning();
      return row ?? null;
    },

    /** Every open purchase's lease ends now (a process starting alone: their holders are dead); each is looked up before buying again. */
    async releaseAllPurchaseLeases(): Promise<number> {
      const rows = await db
        .update(shipment)
        .set({ leaseUntil: null, updatedAt: new Date() })
        .where(and(eq(shipment.status, 'purchasing'), sql`${shipment.leaseUntil} IS NOT NULL`))
        .returning({ id: shipment.id });
      return rows.length;
    },

    /** The purchase's request gives up (the provider did not answer): the next try looks the label up. */
    async releasePurchase(id: string, error: string): Promise<void> {
      await db.update(shipment).set({ error, leaseUntil: null, updatedAt: new Date() }).where(and(eq(shipment.id, id), eq(shipment.status, 'purchasing')));
    },

    async markFailed(id: string, error: string): Promise<void> {
      await db.update(shipment).set({ status: 'failed', error, leaseUntil: null, updatedAt: new Date() }).where(and(eq(shipment.id, id), eq(shipment.status, 'purchasing')));
    },

    /**
     * The label is bought: the shipment and its fulfilment record in one transaction, so the history
     * never misses a label and never holds one that was not bought.
     */
    async markPurchased(
      id: string,
      label: Pick<
        ShipmentRow,
        'carrier' | 'carrierCode' | 'service' | 'trackingNumber' | 'trackingUrl' | 'providerLabelId' | 'labelKey' | 'labelSourceUrl' | 'costCents' | 'currency' | 'rate' | 'writeback'
      >,
      record: NewFulfillmentRecord,
    ): Promise<ShipmentRow | undefined> {
      return db.transaction(async (tx) => {
        const now = new Date();
        const [row] = await tx
          .update(shipment)
          .set({ ...label, status: 'purchased', error: null, leaseUntil: null, shippedAt: now, lastTrackedAt: now, updatedAt: now })
          .where(and(eq(shipment.id, id), eq(shipment.status, 'purchasing')))
          .returning();
        if (row) await tx.insert(fulfillmentRecord).values({ ...record, shipmentId: id, shippedAt: now }).onConflictDoNothing();
        return row;
      });
    },

    async setLabelKey(id: string, labelKey: string): Promise<void> {
      await db.update(shipment).set({ labelKey, updatedAt: new Date() }).where(eq(shipment.id, id));
    },

    /** A voided label leaves the history (it never travelled); the shipment row stays, 'voided'. */
    async markVoided(id: string): Promise<ShipmentRow | undefined> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(shipment)
          .set({ status: 'voided', updatedAt: new Date() })
          .where(and(eq(shipment.id, id), inArray(shipment.status, ['purchased', 'in_transit'])))
          .returning();
        if (row) await tx.delete(fulfillmentRecord).where(eq(fulfillmentRecord.shipmentId, id));
        return row;
      });
    },

    /** Labels in flight whose tracking was last read before `before` (oldest first). */
    /** Orders still shipped whose every live label is delivered (a crash came between the label and the order). */
    async shippedAllDelivered(limit: number): Promise<string[]> {
      const result = await db.execute(sql`
        SELECT o.id FROM "order" o
         WHERE o.status = 'shipped'
           AND EXISTS (SELECT 1 FROM shipment s WHERE s.order_id = o.id AND s.status = 'delivered')
           AND NOT EXISTS (SELECT 1 FROM shipment s WHERE s.order_id = o.id AND s.status IN ('purchasing', 'purchased', 'in_transit'))
         LIMIT ${limit}`);
      return (result as unknown as { rows: { id: string }[] }).rows.map((row) => row.id);
    },

    async inFlight(before: Date, limit: number): Promise<ShipmentRow[]> {
      return db
        .select()
        .from(shipment)
        .where(and(inArray(shipment.status, ['purchased', 'in_transit']), or(isNull(shipment.lastTrackedAt), lt(shipment.lastTrackedAt, before))))
        .orderBy(asc(shipment.lastTrackedAt))
        .limit(limit);
    },

    async byTrackingNumber(trackingNumber: string): Promise<ShipmentRow[]> {
      return db.select().from(shipment).where(and(eq(shipment.trackingNumber, trackingNumber), inArray(shipment.status, [...LIVE])));
    },

    async trackingEventsOf(shipmentId: string) {
      return db.select().from(trackingEvent).where(eq(trackingEvent.shipmentId, shipmentId)).orderBy(desc(trackingEvent.occurredAt));
    },

    /**
     * Stores the carrier's events (a replayed one changes nothing) and the status they add up to.
     * Answers whether the shipment became delivered by this call (once, however often it is told).
     */
    async applyTracking(row: ShipmentRow, info: TrackingInfo, words: string): Promise<{ deliveredNow: boolean }> {
      return db.transaction(async (tx) => {
        if (info.events.length > 0) {
          await tx
            .insert(trackingEvent)
            .values(info.events.map((event) => ({ shipmentId: row.id, eventId: event.eventId, status: event.status, description: event.description, location: event.location, occurredAt: event.occurredAt })))
            .onConflictDoNothing();
        }
        const now = new Date();
        if (info.status === 'delivered') {
          const deliveredAt = info.events.findLast((event) => event.status === 'delivered')?.occurredAt ?? now;
          const [moved] = await tx
            .update(shipment)
            .set({ status: 'delivered', trackingCode: info.status, trackingStatus: words, deliveredAt, lastTrackedAt: now, updatedAt: now })
            .where(and(eq(shipment.id, row.id), inArray(shipment.status, ['purchased', 'in_transit'])))
            .returning({ id: shipment.id });
          if (moved) await tx.update(fulfillmentRecord).set({ deliveredAt }).where(eq(fulfillmentRecord.shipmentId, row.id));
          return { deliveredNow: moved !== undefined };
        }
        const status = info.status === 'pre_transit' || info.status === 'unknown' ? undefined : 'in_transit';
        await tx
          .update(shipment)
          .set({ ...(status ? { status } : {}), trackingCode: info.status, trackingStatus: words, lastTrackedAt: now, updatedAt: now })
          .where(and(eq(shipment.id, row.id), inArray(shipment.status, ['purchased', 'in_transit'])));
        return { deliveredNow: false };
      });
    },

    async touchTracked(id: string): Promise<void> {
      await db.update(shipment).set({ lastTrackedAt: new Date() }).where(eq(shipment.id, id));
    },

    /* ---------- tracking write-back ---------- */

    async setWriteback(id: string, writeback: 'pending' | 'sent' | 'failed', error: string | null, attempted: boolean): Promise<void> {
      await db
        .update(shipment)
        .set({
          writeback,
          writebackError: error,
          ...(attempted ? { writebackAttempts: sql`${shipment.writebackAttempts} + 1` } : {}),
          updatedAt: new Date(),
        })
        .where(eq(shipment.id, id));
    },

    /** Write-backs still pending since before `before` (their job may have been lost with a process). */
    async pendingWritebacks(before: Date, limit: number): Promise<ShipmentRow[]> {
      return db
        .select()
        .from(shipment)
        .where(and(eq(shipment.writeback, 'pending'), lt(shipment.updatedAt, before)))
        .orderBy(asc(shipment.updatedAt))
        .limit(limit);
    },

    /** Write-backs that failed for good, newest first, with the order's number and channel. */
    async failedWritebacks(limit: number) {
      return db
        .select({ shipment, orderNumber: order.externalId, platform: order.platform })
        .from(shipment)
        .innerJoin(order, eq(order.id, shipment.orderId))
        .where(eq(shipment.writeback, 'failed'))
        .orderBy(desc(shipment.updatedAt))
        .limit(limit);
    },
  };
}

export type ShippingRepository = ReturnType<typeof createShippingRepository>;
