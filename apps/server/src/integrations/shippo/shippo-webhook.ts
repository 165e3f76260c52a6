import { z } from 'zod';

/**
 * Reads a `track_updated` webhook body (the spec's top-level `webhooks.track`: WebhookPayloadTrack,
 * `{ event, test, data: Track }`). Only the carrier and tracking number are taken; the caller asks
 * Shippo itself (`track`) for the status, so a forged body can at most cause one lookup.
 * Both values end up in a URL path, so they are held to the characters Shippo uses.
 */
const trackWebhook = z.object({
  event: z.literal('track_updated'),
  data: z.object({
    carrier: z
      .string()
      .trim()
      .regex(/^[a-z0-9_]{1,40}$/),
    tracking_number: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{1,64}$/),
  }),
});

export const parseTrackWebhook = (body: unknown): { carrierCode: string; trackingNumber: string } | null => {
  const parsed = trackWebhook.safeParse(body);
  if (!parsed.success) return null;
  return { carrierCode: parsed.data.data.carrier, trackingNumber: parsed.data.data.tracking_number };
};
