import { ShippingRejectedError, ShippingUnavailableError } from '../../modules/shipping/shipping-provider.ts';

/**
 * Downloads a label PDF from the `label_url` Shippo gave. Those are pre-signed links on Shippo's label
 * storage: `https://deliver.goshippo.com/<id>.pdf?Expires=…&Signature=…` now, and
 * `https://shippo-delivery(-east).s3.amazonaws.com/<id>.pdf?Signature=…` in Shippo's docs and older
 * labels (the spec gives no example). Any other host is refused before anything is sent, because the
 * URL comes from stored data. No Authorization header is sent: the link is its own credential, and
 * the seller's token must never reach a storage host.
 */

const SHIPPO_LABEL_BUCKETS = new Set([
  'shippo-delivery.s3.amazonaws.com',
  'shippo-delivery-east.s3.amazonaws.com',
]);

/** Labels are a few hundred KB; anything far larger is not a label. */
const MAX_LABEL_BYTES = 20 * 1024 * 1024;

export const isShippoLabelUrl = (url: URL): boolean => {
  if (url.protocol !== 'https:' || url.port !== '' || url.username || url.password) return false;
  const host = url.hostname.toLowerCase();
  return host === 'goshippo.com' || host.endsWith('.goshippo.com') || SHIPPO_LABEL_BUCKETS.has(host);
};

export const downloadShippoLabel = async (
  doFetch: typeof fetch,
  rawUrl: string,
  timeoutMs: number,
): Promise<Buffer> => {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ShippingRejectedError('The label link is not a URL', 400);
  }
  if (!isShippoLabelUrl(url))
    throw new ShippingRejectedError(
      `Refused to fetch a label from ${url.origin}: not a Shippo label host`,
      400,
    );

  let response: Response;
  try {
    response = await doFetch(url, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    throw new ShippingUnavailableError(
      `Shippo label download ${timedOut ? `timed out after ${timeoutMs} ms` : 'could not connect'}`,
    );
  }
  if (response.status === 429 || response.status >= 500)
    throw new ShippingUnavailableError(`Shippo label download answered ${response.status}; try again later`);
  // An expired signature answers 403: the label must be looked up again for a fresh link.
  if (response.status !== 200)
    throw new ShippingRejectedError(`Shippo label download refused (${response.status})`, 502);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_LABEL_BYTES) throw new ShippingRejectedError('The label file is too large', 502);
  const bytes = Buffer.from(await response.arrayBuffer());
  if (bytes.length > MAX_LABEL_BYTES) throw new ShippingRejectedError('The label file is too large', 502);
  // We buy PDF labels (label_file_type PDF); anything else is not what we asked for.
  if (!bytes.subarray(0, 5).equals(Buffer.from('%PDF-')))
    throw new ShippingRejectedError('The label file is not a PDF', 502);
  return bytes;
};
