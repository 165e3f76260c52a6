/** Every TanStack Query key of the web app, in one place so invalidation cannot miss a spelling. */
export const queryKeys = {
  me: ['me'] as const,
  isAdmin: (userId: string) => ['check-user', userId] as const,
  config: ['config'] as const,
  dashboard: ['dashboard'] as const,
  adminUsers: (search: string, cursor: string | undefined, limit: number) =>
    ['admin', 'users', { search, cursor, limit }] as const,
  adminUsersAll: ['admin', 'users'] as const,
  adminAudit: (limit: number, cursor: string | undefined) => ['admin', 'audit', { limit, cursor }] as const,
  adminAuditAll: ['admin', 'audit'] as const,
  adminContactMessages: (cursor: string | undefined) => ['admin', 'contact-messages', { cursor }] as const,
  adminPageViews: (days: number) => ['admin', 'page-views', days] as const,
  landingTestimonial: ['site', 'testimonial'] as const,
  discordStatus: ['admin', 'discord'] as const,
  adminPrinters: ['admin', 'printers'] as const,
  adminProductionBoard: ['admin', 'production', 'board'] as const,
};
