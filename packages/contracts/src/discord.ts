import { z } from 'zod';

/**
 * The farm's Discord channel (issue 13; docs/discord.md): whether its webhook is configured, and the
 * spec's sendDiscordNotification(message), an admin's own message to it.
 */

export const discordMessageInputSchema = z
  .object({
    message: z.string().trim().min(1, 'Write a message').max(2000, 'Discord takes at most 2,000 characters'),
  })
  .strict();
export type DiscordMessageInput = z.infer<typeof discordMessageInputSchema>;

export const discordStatusSchema = z.object({
  /** DISCORD_WEBHOOK_URL is set: alerts go to the channel; otherwise they are only written to the server log. */
  configured: z.boolean(),
});
export type DiscordStatus = z.infer<typeof discordStatusSchema>;

export const discordSendResultSchema = z.object({
  /** Posted to the channel (false: no webhook configured, the message went to the server log). */
  delivered: z.boolean(),
  /** Discord's id of the posted message. */
  messageId: z.string().nullable(),
});
export type DiscordSendResult = z.infer<typeof discordSendResultSchema>;
