/**
 * ShipStation names carriers by its own account codes (`stamps_com` is USPS bought through Stamps.com,
 * `ups_walleted` is UPS on ShipStation's own account). Marketplaces and buyers know the carrier, not
 * the account: this turns one into the other, and gives the carrier's public tracking page. Codes not
 * listed here are passed through as ShipStation gave them.
 */

interface KnownCarrier {
  readonly code: string;
  readonly name: string;
  readonly trackingPage: string;
}

const USPS: KnownCarrier = {
  code: 'usps',
  name: 'USPS',
  trackingPage: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=',
};
const UPS: KnownCarrier = { code: 'ups', name: 'UPS', trackingPage: 'https://www.ups.com/track?tracknum=' };
const FEDEX: KnownCarrier = {
  code: 'fedex',
  name: 'FedEx',
  trackingPage: 'https://www.fedex.com/fedextrack/?trknbr=',
};
const DHL_EXPRESS: KnownCarrier = {
  code: 'dhl_express',
  name: 'DHL Express',
  trackingPage: 'https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=',
};

const BY_SHIPSTATION_CODE: Readonly<Record<string, KnownCarrier>> = {
  stamps_com: USPS,
  endicia: USPS,
  usps: USPS,
  ups: UPS,
  ups_walleted: UPS,
  fedex: FEDEX,
  fedex_walleted: FEDEX,
  dhl_express: DHL_EXPRESS,
  dhl_express_walleted: DHL_EXPRESS,
};

/** The carrier as marketplaces know it: `{ code: 'usps', name: 'USPS' }` for `stamps_com`. */
export const carrierOf = (shipStationCode: string, shipStationName = ''): { code: string; name: string } => {
  const known = BY_SHIPSTATION_CODE[shipStationCode.toLowerCase()];
  if (known) return { code: known.code, name: known.name };
  return { code: shipStationCode, name: shipStationName.trim() || shipStationCode };
};

/** The carrier's public tracking page for a number, or '' when we do not know the carrier's page. */
export const trackingUrlOf = (shipStationCode: string, trackingNumber: string): string => {
  const known = BY_SHIPSTATION_CODE[shipStationCode.toLowerCase()];
  return known ? `${known.trackingPage}${encodeURIComponent(trackingNumber)}` : '';
};
