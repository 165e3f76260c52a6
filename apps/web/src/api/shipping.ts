import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AdminUserList,
  Order,
  OrderList,
  OrderRates,
  Shipment,
  ShipStationApiVersion,
  ShipStationKeys,
  ShippingIntegration,
  ShippingProfile,
  ShippingProfileInput,
  ShippingRate,
  ShippingSettings,
  ShippoConnection,
  failedWritebackSchema,
  markShipStationOrderShippedInputSchema,
  shipStationLabelForOrderInputSchema,
  shipStationRatesInputSchema,
  shippoOrderSchema,
  trackingEventSchema,
} from '@layerline/contracts';
import { ApiError, apiFetch } from './client.ts';
import { orderKeys } from './orders.ts';

/**
 * Shipping (docs/shipping.md): a seller's integration and provider accounts, the admins' shipping
 * profiles, rates and labels at the packing station, failed tracking write-backs and the public
 * tracking page. Fulfilment history has its own hooks.
 */

/** An order in the seller's Shippo account (the spec's fetchShippoOrders). */
export type ShippoOrder = (typeof shippoOrderSchema)['_output'];
/** A tracking write-back that failed for good (admins retry it). */
export type FailedWriteback = (typeof failedWritebackSchema)['_output'];
export type TrackingEvent = (typeof trackingEventSchema)['_output'];
/** GET /api/tracking/{trackingNumber}: what the public tracking page shows. */
export interface PublicTracking {
  trackingNumber: string;
  carrier: string;
  service: string;
  /** The last tracking status in words ("In transit: Memphis, TN"). */
  status: string;
  delivered: boolean;
  events: TrackingEvent[];
}

/** Query keys of shipping (kept here: only these hooks use them). */
export const shippingKeys = {
  all: ['shipping'] as const,
  settings: (targetUserId: string | undefined) => ['shipping', 'settings', targetUserId ?? 'me'] as const,
  shipStationKeys: (targetUserId: string | undefined) => ['shipping', 'shipstation-keys', targetUserId ?? 'me'] as const,
  shippoConnection: (targetUserId: string | undefined) => ['shipping', 'shippo', targetUserId ?? 'me'] as const,
  profiles: ['shipping', 'profiles'] as const,
  orderRates: (orderId: string) => ['shipping', 'rates', orderId] as const,
  writebacks: ['shipping', 'writebacks'] as const,
  tracking: (trackingNumber: string) => ['shipping', 'tracking', trackingNumber] as const,
};

const withTarget = (path: string, targetUserId: string | undefined): string =>
  targetUserId ? `${path}?${new URLSearchParams({ targetUserId }).toString()}` : path;
const target = (targetUserId: string | undefined) => (targetUserId ? { targetUserId } : {});
const enc = encodeURIComponent;

/** A shipping write re-reads every shipping answer (settings, keys, connection, profiles). */
function useShippingMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => queryClient.invalidateQueries({ queryKey: shippingKeys.all }),
  });
}

/* ---------- A seller's settings (Account settings → Shipping) ---------- */

export function useShippingSettings(targetUserId?: string) {
  return useQuery({
    queryKey: shippingKeys.settings(targetUserId),
    queryFn: () => apiFetch<ShippingSettings>(withTarget('/api/shipping/settings', targetUserId)),
  });
}

/** setShippingIntegration: which integration buys this seller's labels. */
export function useSetShippingIntegration() {
  return useShippingMutation(
    ({ integration, targetUserId }: { integration: ShippingIntegration; targetUserId?: string }) =>
      apiFetch<ShippingSettings>('/api/shipping/integration', {
        method: 'POST',
        json: { integration, ...target(targetUserId) },
      }),
  );
}

/* ---------- ShipStation ---------- */

export function useShipStationKeys(targetUserId?: string) {
  return useQuery({
    queryKey: shippingKeys.shipStationKeys(targetUserId),
    queryFn: () => apiFetch<ShipStationKeys>(withTarget('/api/shipstation/keys', targetUserId)),
  });
}

/** storeShipStationKeys: checked with ShipStation first; refused keys answer 400 and nothing is stored. */
export function useStoreShipStationKeys() {
  return useShippingMutation(
    (input: { apiKey: string; apiSecret: string; apiVersion: ShipStationApiVersion; targetUserId?: string }) =>
      apiFetch<ShipStationKeys>('/api/shipstation/keys', { method: 'POST', json: input }),
  );
}

export function useRemoveShipStationKeys() {
  return useShippingMutation((targetUserId: string | undefined) =>
    apiFetch<ShipStationKeys>(withTarget('/api/shipstation/keys', targetUserId), { method: 'DELETE' }),
  );
}

/** getShipStationRates: rates for a parcel described as ShipStation's getrates takes it. */
export function useShipStationRates() {
  return useMutation({
    mutationFn: (input: (typeof shipStationRatesInputSchema)['_input']) =>
      apiFetch<{ rates: ShippingRate[] }>('/api/shipstation/rates', { method: 'POST', json: input }),
  });
}

/** createShipStationLabel: a label for one of our orders, bought on the seller's ShipStation account. */
export function useCreateShipStationLabel() {
  return useLabelMutation((input: { orderId: string; rateId?: string; testLabel?: boolean; targetUserId?: string }) =>
    apiFetch<{ shipments: Shipment[] }>('/api/shipstation/labels', { method: 'POST', json: input }),
  );
}

/** createShipStationLabelForOrder: a label for an order that lives in ShipStation. */
export function useCreateShipStationLabelForOrder() {
  return useMutation({
    mutationFn: (input: (typeof shipStationLabelForOrderInputSchema)['_input']) =>
      apiFetch<{ trackingNumber: string; carrier: string; service: string; costCents: number; labelUrl: string }>(
        '/api/shipstation/labels/for-order',
        { method: 'POST', json: input },
      ),
  });
}

/** markShipStationOrderShipped: ShipStation (and its sales channel) learns the tracking. */
export function useMarkShipStationOrderShipped() {
  return useMutation({
    mutationFn: (input: (typeof markShipStationOrderShippedInputSchema)['_input']) =>
      apiFetch<{ orderId: number; orderNumber: string }>('/api/shipstation/orders/mark-shipped', {
        method: 'POST',
        json: input,
      }),
  });
}

/* ---------- Shippo ---------- */

export function useShippoConnection(targetUserId?: string) {
  return useQuery({
    queryKey: shippoConnectionKey(targetUserId),
    queryFn: () => apiFetch<ShippoConnection>(withTarget('/api/shippo/connection', targetUserId)),
  });
}
const shippoConnectionKey = shippingKeys.shippoConnection;

/** Starts Shippo's OAuth: the answer is where to send the browser (the state is bound to the seller). */
export function useStartShippoAuthorize() {
  return useMutation({
    mutationFn: () => apiFetch<{ authorizeUrl: string }>('/api/shippo/authorize', { method: 'POST', json: {} }),
  });
}

/** exchangeShippoToken: the code and state Shippo sent back to /shippo-oauth-redirect. */
export function exchangeShippoToken(input: { code: string; state: string }): Promise<ShippoConnection> {
  return apiFetch<ShippoConnection>('/api/shippo/exchange-token', { method: 'POST', json: input });
}

export function useDisconnectShippo() {
  return useShippingMutation((targetUserId: string | undefined) =>
    apiFetch<ShippoConnection>('/api/shippo/disconnect', { method: 'POST', json: target(targetUserId) }),
  );
}

/** fetchShippoOrders: the orders in the seller's Shippo account (read on demand). */
export function useShippoOrders() {
  return useMutation({
    mutationFn: (targetUserId: string | undefined) =>
      apiFetch<{ orders: ShippoOrder[] }>('/api/shippo/orders', { method: 'POST', json: target(targetUserId) }),
  });
}

/** getShippoRates: the parcel plan and rates of one of our orders, from the seller's Shippo account. */
export function useShippoRates() {
  return useMutation({
    mutationFn: ({ orderId, targetUserId }: { orderId: string; targetUserId?: string }) =>
      apiFetch<OrderRates>('/api/shippo/rates', {
        method: 'POST',
        json: { ...target(targetUserId), shippingInfo: { orderId } },
      }),
  });
}

/** purchaseShippoLabel: buys the (chosen or recommended) rate's label on the seller's Shippo account. */
export function usePurchaseShippoLabel() {
  return useLabelMutation((input: { orderId: string; rateId?: string; targetUserId?: string }) =>
    apiFetch<{ shipments: Shipment[] }>('/api/shippo/labels', { method: 'POST', json: input }),
  );
}

/* ---------- Packing station (admins) ---------- */

/** A label write re-reads the orders (their shipments and status) and the rates. */
function useLabelMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: shippingKeys.all });
      return queryClient.invalidateQueries({ queryKey: orderKeys.all });
    },
  });
}

/** The parcel plan and each parcel's rates, from the seller's integration. */
export function useOrderRates(orderId: string, enabled = true) {
  return useQuery({
    queryKey: shippingKeys.orderRates(orderId),
    queryFn: () => apiFetch<OrderRates>(`/api/admin/shipping/orders/${enc(orderId)}/rates`),
    enabled,
    // Rates are quotes: a second look should ask again rather than retry a refusal.
    retry: false,
    staleTime: 60_000,
  });
}

/** Buys the labels (one rate per parcel, in the plan's order; absent: the recommended ones). Bought once. */
export function useBuyLabels() {
  return useLabelMutation(({ orderId, rateIds }: { orderId: string; rateIds?: string[] }) =>
    apiFetch<{ shipments: Shipment[] }>(`/api/admin/shipping/orders/${enc(orderId)}/labels`, {
      method: 'POST',
      json: rateIds ? { rateIds } : {},
    }),
  );
}

/** Voids a label (refunded through the provider). */
export function useVoidShipment() {
  return useLabelMutation((shipmentId: string) =>
    apiFetch<Shipment>(`/api/admin/shipping/shipments/${enc(shipmentId)}/void`, { method: 'POST', json: {} }),
  );
}

/** The label PDF (the seller's own, or any for an admin). */
export const shipmentLabelUrl = (shipmentId: string): string => `/api/shipping/shipments/${enc(shipmentId)}/label`;

/** Orders packed and waiting for their label (admins); re-read now and then, as packing goes on. */
export function usePackedOrders(limit = 50) {
  const filter = { status: 'packed', search: '', from: '', to: '', cursor: undefined, limit } as const;
  return useQuery({
    queryKey: orderKeys.list('admin', filter),
    queryFn: () => apiFetch<OrderList>(`/api/admin/orders?${new URLSearchParams({ status: 'packed', limit: String(limit) })}`),
    refetchInterval: 10_000,
  });
}

/** One order with its shipments (admins may read any order). */
export function useOrderShipments(orderId: string) {
  return useQuery({
    queryKey: orderKeys.detail(orderId),
    queryFn: () => apiFetch<Order>(`/api/orders/${enc(orderId)}`),
    // Tracking moves by itself once a label is bought: follow it while the panel is open.
    refetchInterval: (query) => (query.state.data?.shipments.some((s) => s.status === 'purchasing') ? 2000 : 15_000),
  });
}

/* ---------- Tracking write-backs (admins) ---------- */

export function useFailedWritebacks() {
  return useQuery({
    queryKey: shippingKeys.writebacks,
    queryFn: () => apiFetch<{ items: FailedWriteback[] }>('/api/admin/shipping/writebacks'),
    refetchInterval: 30_000,
  });
}

export function useRetryWriteback() {
  return useLabelMutation((shipmentId: string) =>
    apiFetch<unknown>(`/api/admin/shipping/shipments/${enc(shipmentId)}/writeback`, { method: 'POST', json: {} }),
  );
}

/* ---------- Shipping profiles (admins) ---------- */

export function useShippingProfiles() {
  return useQuery({
    queryKey: shippingKeys.profiles,
    queryFn: () =>
      apiFetch<{ items: ShippingProfile[]; shippoWebhookUrl?: string }>('/api/admin/shipping-profiles'),
  });
}

export function useCreateShippingProfile() {
  return useShippingMutation((input: ShippingProfileInput) =>
    apiFetch<ShippingProfile>('/api/admin/shipping-profiles', { method: 'POST', json: input }),
  );
}

export function useUpdateShippingProfile() {
  return useShippingMutation(({ id, input }: { id: string; input: ShippingProfileInput }) =>
    apiFetch<ShippingProfile>(`/api/admin/shipping-profiles/${enc(id)}`, { method: 'PUT', json: input }),
  );
}

export function useDeleteShippingProfile() {
  return useShippingMutation((id: string) =>
    apiFetch<unknown>(`/api/admin/shipping-profiles/${enc(id)}`, { method: 'DELETE' }),
  );
}

/**
 * Assigns a profile to a seller (null: back to the default). The seller may be named by email (found
 * among the accounts, exactly) or by id.
 */
export function useAssignShippingProfile() {
  return useShippingMutation(async ({ profileId, seller }: { profileId: string | null; seller: string }) => {
    const targetUserId = await resolveSeller(seller);
    return apiFetch<ShippingSettings>('/api/admin/shipping-profiles/assign', {
      method: 'POST',
      json: { profileId, targetUserId },
    });
  });
}

async function resolveSeller(seller: string): Promise<string> {
  const wanted = seller.trim();
  if (!wanted.includes('@')) return wanted;
  const found = await apiFetch<AdminUserList>(
    `/api/admin/users?${new URLSearchParams({ search: wanted, limit: '20' }).toString()}`,
  );
  const match = found.items.find((user) => user.email.toLowerCase() === wanted.toLowerCase());
  if (!match) throw new ApiError(`No account has the email ${wanted}`, 404);
  return match.id;
}

/* ---------- Public tracking ---------- */

/** The public tracking page's data; null when the number is unknown (404). */
export function useTracking(trackingNumber: string) {
  return useQuery({
    queryKey: shippingKeys.tracking(trackingNumber),
    queryFn: async () => {
      try {
        return await apiFetch<PublicTracking>(`/api/tracking/${enc(trackingNumber)}`);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    enabled: trackingNumber.length > 0,
    retry: false,
  });
}

/* ---------- Words ---------- */

export const SHIPMENT_STATUS_LABELS: Readonly<Record<Shipment['status'], string>> = {
  purchasing: 'Buying the label',
  purchased: 'Label bought',
  in_transit: 'In transit',
  delivered: 'Delivered',
  voided: 'Voided',
  failed: 'Failed',
};

export const WRITEBACK_LABELS: Readonly<Record<Shipment['writeback'], string>> = {
  none: 'No marketplace to tell',
  pending: 'Sending the tracking to the marketplace',
  sent: 'The marketplace has the tracking',
  failed: 'The tracking could not be sent to the marketplace',
};

/** A label that still counts (not voided, not failed). */
export const isLiveShipment = (shipment: Shipment): boolean =>
  shipment.status !== 'voided' && shipment.status !== 'failed';

/** "$4.25". */
export function formatMoney(cents: number | null, currency: string): string {
  if (cents === null) return '—';
  return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency || 'USD' }).format(cents / 100);
}
