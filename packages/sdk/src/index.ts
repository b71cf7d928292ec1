export type {
  EffectProfileView,
  HookInput,
  HookResult,
  MatchedRuleView as MatchedRule,
  OperationName,
  Remember,
} from '@airlock/core';
// For an approval UI: an agent's text shown as it will run (hidden characters, padding as marks).
export { hasHiddenCharacters, shortened, visibleText } from '@airlock/core/text';
export type { Call, CallInput, CallOptions, CallOutput } from './call.js';
export {
  type Client,
  type ClientOptions,
  createClient,
  type DecisionPage,
  Workspace,
  WorkspaceDecisions,
} from './client.js';
export { Approval, type Decision, Question } from './decisions.js';
export {
  AirlockError,
  type AirlockErrorInit,
  ConflictError,
  ConnectionError,
  DeadlineExceededError,
  FeedResyncError,
  ForbiddenError,
  isAirlockError,
  isConflictError,
  isConnectionError,
  isDeadlineExceededError,
  isFeedResyncError,
  isForbiddenError,
  isLeaseLostError,
  isNotFoundError,
  isRequestRefusedError,
  isServerError,
  isUnauthorizedError,
  isValidationError,
  LeaseLostError,
  type LostClaim,
  NotFoundError,
  type Problem,
  type RanCall,
  RequestRefusedError,
  ServerError,
  UnauthorizedError,
  ValidationError,
} from './errors.js';
export {
  createExecutor,
  type Executor,
  type ExecutorOptions,
  type RunClaimedOptions,
  type ToolContext,
  ToolError,
  type ToolHandler,
} from './executor.js';
export { type FeedOptions, FeedSubscription } from './feed.js';
export type { RequestOptions } from './internal/deadline.js';
export type { SocketStatus, WebSocketConstructor, WebSocketLike } from './internal/socket.js';
export type { WatchOptions } from './internal/watch-decisions.js';
export {
  type DeliveryFilter,
  type DeliveryPage,
  Notifications,
} from './notifications.js';
export { type DecisionStream, RunHandle, type RunPage, Runs, type TaskPage } from './runs.js';
export type {
  ApprovalProgress,
  AuditRecord,
  ClaimView,
  CreateRunInput,
  DeliveryView,
  FeedEvent,
  InboxItem,
  RunView,
  TaskView,
} from './views.js';
