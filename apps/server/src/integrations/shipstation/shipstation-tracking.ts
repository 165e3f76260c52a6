import type { TrackingStatusCode } from '../../modules/shipping/shipping-provider.ts';

/**
 * ShipStation v2's tracking codes in our TRACKING_STATUSES. Its docs give two-letter `status_code`s
 * (UN, AC, IT, DE, EX, AT, NY, SP) and the finer `status_detail_code`s; its OpenAPI file types both
 * fields as detail codes. The detail code is read first, then the status code; anything else
 * (CARRIER_STATUS_NOT_MAPPED, INFORMATION, a code added later) is 'unknown'.
 */

const BY_STATUS_CODE: Readonly<Record<string, TrackingStatusCode>> = {
  UN: 'unknown',
  NY: 'pre_transit', // not yet in the carrier's system
  AC: 'in_transit', // accepted by the carrier
  IT: 'in_transit',
  AT: 'in_transit', // a delivery attempt: the carrier tries again
  DE: 'delivered',
  SP: 'delivered', // delivered to a collection point
  EX: 'failure',
};

const group = (status: TrackingStatusCode, codes: readonly string[]) =>
  codes.map((code) => [code, status] as const);

const BY_DETAIL_CODE: ReadonlyMap<string, TrackingStatusCode> = new Map([
  ...group('pre_transit', [
    'AWAITING_DESPATCH',
    'COLLECTION_REQUESTED',
    'COLLECTION_FAILED', // "the delivery company will try again soon"
    'ELEC_ADVICE_RECD_BY_CARRIER',
    'NOT_YET_RECEIVED_BY_CARRIER',
    'AWAITING_ELECTRONIC_ADVICE',
  ]),
  ...group('in_transit', [
    'DESPATCHED',
    'COLLECTION_MADE',
    'RECEIVED_BY_CARRIER',
    'RECD_BY_CARRIER_NO_ELEC_ADVICE',
    'RECEIVED_LOCAL_DELIVERY_DEPOT',
    'IN_TRANSIT',
    'HUB_SCAN_OUT',
    'SUB_CONTRACTOR_EVENT',
    'SUB_CONTRACTOR_RECEIVED',
    'ATTEMPTED_DELIVERY',
    'ATTEMPTED_DELIVERY_2ND',
    'ATTEMPTED_DELIVERY_3RD',
    'CUSTOMER_CARDED',
    'ADDRESS_QUERY',
    'CARRIER_DELAYS',
    'DELAYED_NOT_CARRIER',
    'DELIVERY_ARRANGED_WITH_RECIPIENT',
    'CUSTOMS_CLEARED',
    'CUSTOMS_PROCESSING',
    'HELD_BY_CARRIER',
    'HELD_BY_CARRIER_FOR_CLEARANCE_PRE_PROCESSING',
    'HELD_BY_CUSTOMS',
    'HELD_BY_EXPORT_CUSTOMS',
    'HELD_BY_IMPORT_CUSTOMS',
    'MISSORTED',
    'ROUTING_ERROR',
    'PARCEL_OVER_LABELLED',
    'PARCEL_REPACKED',
    'PARCEL_UPDATE_NOTIFICATION_VIA_EMAIL',
    'PARCEL_UPDATE_NOTIFICATION_VIA_SMS',
    'AWAITING_COLLECTION_FROM_PICKUP_POINT',
    'COLLECT_AT_LOCAL_PO',
    'CUSTOMER_TO_COLLECT_FROM_CARRIER',
    'COD_AMOUNT_NOT_PAID',
    'COD_AMOUNT_PAID',
  ]),
  ...group('out_for_delivery', ['OUT_FOR_DELIVERY']),
  ...group('delivered', [
    'DELIVERED',
    'DELIVERED_DAMAGED',
    'DELIVERED_IN_PART',
    'DELIVERED_SPECIFIED_SAFE_PLACE',
    'DELIVERED_TO_ALTERNATIVE_DELIVERY_LOCATION',
    'DELIVERED_TO_NEIGHBOUR',
    'DELIVERED_TO_PO_BOX',
    'DELIVERED_TO_LOCKER_COLLECTION_POINT',
    'PARCEL_COLLECTED_FROM_PICKUP_POINT',
    'POST_TRANSIT_STATUS',
    'PROOF_OF_DELIVERY',
  ]),
  ...group('returned', ['RETURN_TO_SENDER']),
  ...group('failure', [
    'CANCELLED',
    'CANCELLED_BEFORE_DESPATCH',
    'CUSTOMER_IDENTIFICATION_FAILED',
    'CUSTOMER_MOVED',
    'HAZARDOUS_PROHIBITED',
    'INCORRECT_DECLARATION',
    'INVALID_METHOD_OF_PAYMENT',
    'NO_ACCESS_TO_RECIPIENTS_ADDRESS',
    'NOT_COLLECTED_FROM_PICKUP_POINT',
    'NOT_DELIVERED',
    'NOT_DELIVERED_ADDRESSEE_DECEASED',
    'PARCEL_DAMAGED',
    'PARCEL_DISPOSED',
    'PARCEL_LOST',
    'PARCEL_OUTSIDE_OF_SERVICE_CAPABILITY',
    'REFUSED_BY_CUSTOMER',
  ]),
]);

export const trackingStatusOf = (
  detailCode: string | null | undefined,
  statusCode: string | null | undefined,
): TrackingStatusCode => {
  for (const code of [detailCode, statusCode]) {
    if (!code) continue;
    const status = BY_DETAIL_CODE.get(code.toUpperCase()) ?? BY_STATUS_CODE[code.toUpperCase()];
    if (status) return status;
  }
  return 'unknown';
};
