export type Command = (argv: string[]) => Promise<number>;

/**
 * Each command's module, loaded only when it runs: `airlock runs list` needs
 * the SDK, not the kernel, its store drivers and its HTTP stack, so an
 * operator command starts in a fraction of the time `serve` takes to load.
 */
export const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.js')).serve,
  token: async () => (await import('./token.js')).token,
  tokens: async () => (await import('./operator/tokens.js')).tokens,
  decisions: async () => (await import('./operator/decisions.js')).decisions,
  approvals: async () => (await import('./operator/approvals.js')).approvals,
  runs: async () => (await import('./operator/runs.js')).runs,
  overlays: async () => (await import('./operator/overlays.js')).overlays,
  apps: async () => (await import('./operator/apps.js')).apps,
  audit: async () => (await import('./operator/audit.js')).audit,
  retention: async () => (await import('./operator/retention.js')).retention,
  notifications: async () => (await import('./operator/notifications.js')).notifications,
  hooks: async () => (await import('./hooks.js')).hooks,
  backup: async () => (await import('./backup.js')).backup,
  restore: async () => (await import('./backup.js')).restore,
  fence: async () => (await import('./fence.js')).fence,
};
