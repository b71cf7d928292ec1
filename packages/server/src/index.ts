export { type Airlock, type AirlockOptions, SERVER_VERSION, startAirlock } from './airlock.js';
export { ClaimSchema, InboxItemSchema } from './api/executor.js';
export { buildOpenApiDocument } from './api/openapi.js';
export type { Operation, OperationContext } from './api/operation.js';
export { OPERATIONS } from './api/operations.js';
export { ErrorBodySchema } from './api/schemas.js';
export { type AppRouter, appRouter } from './api/trpc.js';
export { FeedHub } from './feed/hub.js';
export type { WorkAvailable } from './feed/nudges.js';
export {
  AirlockError,
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorCode,
  type ProblemDetail,
} from './kernel/errors.js';
export { DEFAULT_PARK_TTL_MS, Kernel, type KernelOptions } from './kernel/kernel.js';
export { APPROVAL_EXPIRED_TEXT, TASK_STATES, type TaskState } from './kernel/task-states.js';
export {
  type Attention,
  AttentionSchema,
  type EventView,
  EventViewSchema,
  type RunView,
  RunViewSchema,
  type TaskView,
  TaskViewSchema,
} from './kernel/views.js';
export { defaultProviders, type ProviderRegistry } from './providers/registry.js';
export {
  type FedResult,
  type ModelProvider,
  ProviderConfigSchema,
  ProviderError,
  type ProviderRound,
  type RoundRequest,
  ScriptedRoundSchema,
} from './providers/types.js';
export {
  authenticate,
  type CredentialKind,
  createAgentApplication,
  createCredential,
  createWorkspace,
  type Principal,
  revokeCredential,
} from './store/accounts.js';
export { Store, type StoreLocation } from './store/store.js';
