/**
 * Shippo's carrier tokens (the spec's `CarriersEnum`, /work/shared/contracts/shippo/public-api.yaml).
 * A rate names its carrier by display name ("USPS", "DHL Express") and its service by a token that
 * starts with the carrier token ("usps_priority", "dhl_express_worldwide"). The carrier token is what
 * `GET /tracks/{Carrier}/…` and the `track_updated` webhook use, so it is our carrier code.
 */
// prettier-ignore
const CARRIER_TOKENS: readonly string[] = [
  'airterra', 'apc_postal', 'apg', 'aramex', 'asendia_us', 'australia_post', 'axlehire', 'better_trucks',
  'borderguru', 'boxberry', 'bring', 'canada_post', 'cdl', 'chronopost', 'collect_plus', 'correios_br',
  'correos_espana', 'couriersplease', 'colissimo', 'deutsche_post', 'dhl_benelux', 'dhl_ecommerce',
  'dhl_express', 'dhl_germany_c2c', 'dhl_germany', 'dpd_de', 'dpd_uk', 'estafeta', 'fastway_australia',
  'fedex', 'globegistics', 'gls_us', 'gophr', 'gso', 'hermes_germany_b2c', 'hermes_uk', 'hongkong_post',
  'lasership', 'lso', 'mondial_relay', 'new_zealand_post', 'nippon_express', 'ontrac', 'orangeds',
  'parcelforce', 'parcel', 'passport', 'pcf', 'poste_italiane', 'posti', 'purolator', 'royal_mail',
  'rr_donnelley', 'russian_post', 'sendle', 'skypostal', 'stuart', 'swyft', 'uds', 'ups', 'usps', 'veho',
  'x_delivery', 'yodel',
];

// Longest first, so 'dhl_germany_c2c_…' is not read as 'dhl_germany' and 'parcelforce_…' not as 'parcel'.
const BY_LENGTH = [...CARRIER_TOKENS].sort((a, b) => b.length - a.length);

/**
 * The carrier token for a rate: the longest known token the service level token starts with, else
 * the display name in token form ("Canada Post" → "canada_post"), which is how Shippo spells them.
 */
export const carrierCodeOf = (serviceLevelToken: string, providerName: string): string => {
  const token = serviceLevelToken.toLowerCase();
  const known = BY_LENGTH.find((carrier) => token === carrier || token.startsWith(`${carrier}_`));
  if (known) return known;
  return providerName
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
};
