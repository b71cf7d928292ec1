// The wire contract: what the kernel, the SDK and the CLIs exchange.
export {
  AuditLayerSchema,
  type AuditRecord,
  AuditRecordSchema,
  DeciderSchema,
  type PolicyChange,
  PolicyChangeKindSchema,
  PolicyChangeSchema,
} from './audit.js';
export { BODY_LIMIT_HEADER, readBodyLimitHeader } from './body-limit.js';
export {
  BODY_ERROR_CODES,
  COMMON_ERROR_CODES,
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorBody,
  ErrorBodySchema,
  type ErrorCode,
  ErrorCodeSchema,
  errorStatus,
  type LostClaim,
  LostClaimSchema,
  type ProblemDetail,
  ProblemDetailSchema,
  type RanCall,
  RanCallSchema,
} from './error-codes.js';
export {
  EVENT_TYPES,
  type EventData,
  type EventType,
  type EventView,
  EventViewSchema,
  type Remembered,
  RememberedSchema,
  type WorkAvailable,
  WorkAvailableSchema,
} from './events.js';
export {
  type Failure,
  FailureSchema,
  ROW_FAILURE_CODES,
  type RowFailureCode,
} from './failure-codes.js';
export {
  AfterSchema,
  ExecutorTaskParams,
  IdSchema,
  LeaseSchema,
  LimitSchema,
  ModeSchema,
  OWN_WORKSPACE,
  RunParams,
  RunStartShape,
  TaskParams,
  WorkspaceParams,
} from './inputs.js';
export { jsonStringEnd, jsonTextNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth.js';
export { inexactNumber } from './json-numbers.js';
export { MODEL_ROUNDS_DEFAULT, MODEL_ROUNDS_MAX } from './kernel-limits.js';
export {
  defineContract,
  type OperationContract,
  type OperationInput,
  type OperationOutput,
} from './operation.js';
export {
  type AgentApplicationView,
  AgentApplicationViewSchema,
  type CredentialView,
  CredentialViewSchema,
} from './operations/accounts.js';
export {
  type ApprovalPolicyView,
  ApprovalPolicyViewSchema,
} from './operations/approval-policy.js';
export {
  HOOKED_AGENTS,
  HOOKED_EVENTS,
  HOOKED_FRAMEWORKS,
  HOOKED_OUTPUT_MAX_BYTES,
  HOOKED_RAN_CALLS_MAX,
  HOOKED_VERDICTS,
  type HookedAgent,
  type HookedAnswer,
  type HookedEvent,
  type HookedFramework,
  type HookedLoop,
  type HookedRanCall,
  type HookedVerdict,
} from './operations/hooks.js';
export {
  type DeliveryView,
  DeliveryViewSchema,
} from './operations/notifications.js';
export { type OverlayView, OverlayViewSchema } from './operations/overlays.js';
export {
  OPERATION_CONTRACTS,
  type OperationContracts,
  type OperationName,
} from './operations/registry.js';
export {
  RETENTION_MAX_DAYS,
  type RetentionPolicyView,
  RetentionPolicyViewSchema,
} from './operations/retention.js';
export {
  POLICY_TEXT_CODES,
  type PolicyTextCode,
  type PolicyTextProblem,
  pointerToken,
  policyTextProblems,
} from './policy-text.js';
export {
  GatewayProviderSchema,
  OpenAIProviderSchema,
  OpenAIToolSchema,
  type ProviderConfig,
  ProviderConfigSchema,
  ScriptedCallSchema,
  ScriptedProviderSchema,
  type ScriptedRound,
  ScriptedRoundSchema,
} from './provider.js';
export {
  type JsonValue,
  JsonValueSchema,
  PROTOCOL_SCHEMAS,
  type ProtocolSchemaMeta,
} from './registry.js';
export { asKeptText, isStorableText } from './stored-text.js';
export {
  type CableMessage,
  CableMessageSchema,
  FeedEventMessageSchema,
  type FeedMessage,
  FeedMessageSchema,
  SocketPongMessageSchema,
  SocketReadyMessageSchema,
  SocketResyncMessageSchema,
  SUBSCRIPTION_CONTRACTS,
  type SubscriptionContract,
  type SubscriptionName,
} from './subscriptions.js';
export {
  AppendedTaskViewSchema,
  type ApprovalProgress,
  ApprovalProgressSchema,
  ApprovalRuleViewSchema,
  type Attention,
  AttentionSchema,
  ClaimSchema,
  type ClaimView,
  type CredentialKind,
  CredentialKindSchema,
  DecisionViewSchema,
  type EffectProfileView,
  EffectProfileViewSchema,
  FailureViewSchema,
  type InboxItem,
  InboxItemSchema,
  LifecycleHooksViewSchema,
  type MatchedRuleView,
  type MemberRole,
  MemberRoleSchema,
  type OnFailure,
  OnFailureSchema,
  type ProfileConfigurationView,
  ProfileConfigurationViewSchema,
  RUN_STATES,
  type RunState,
  RunStateSchema,
  type RunView,
  RunViewSchema,
  TASK_STATES,
  type TaskKind,
  TaskKindSchema,
  type TaskState,
  TaskStateSchema,
  type TaskView,
  TaskViewSchema,
} from './views.js';
