export {
  type ApprovalPolicy,
  type ApprovalPolicyRule,
  type ApprovalRequirement,
  type ApprovalSubject,
  approvalRequirement,
  credentialIdOf,
  MAX_REQUIRED_APPROVALS,
  policyCredentialIds,
  validateApprovalPolicy,
} from './approvals/approval-policy.js';
export {
  classifyShellCommand,
  MAX_CLASSIFIED_COMMAND_LENGTH,
  UNREAD_COMMAND_TAGS,
} from './classify/action-tags.js';
export {
  argvLine,
  buildEffectProfile,
  canonicalTarget,
  classifyCommands,
  type EffectProfile,
  type EffectProfileOptions,
  EffectProfileSchema,
  shellCommandsOf,
} from './classify/effect-profile.js';
export { type ClassifiedSegment, classifyShellSegments } from './classify/segment-walker.js';
export { type ShellSegment, splitShellSegments } from './classify/shell-segments.js';
export { ACTION_TAGS, type ActionTag } from './classify/tags.js';
export {
  ACCEPTED_TAGS,
  CONTRACT_LISTS,
  type ContractList,
  type ContractRule,
  type ContractSubject,
  parseContractRule,
  ruleMatches,
} from './contracts/contract-rules.js';
export {
  type ActionContractDeclaration,
  ActionContractSchema,
} from './contracts/contract-schema.js';
export {
  type ContractCall,
  contractSubject,
  evaluateActionContract,
  firstMatchingRule,
  HIGH_RISK_TAGS,
  ruleLocation,
} from './contracts/evaluate-contract.js';
export {
  type ActionContract,
  validateActionContract,
} from './contracts/validate-contract.js';
export {
  decide,
  explainMatches,
  REASON_MAX_BYTES,
  type RuleMatch,
  type ToolCall,
} from './evaluate/decide.js';
export { compileGlob, type Glob, isLiteralGlob, matchGlob } from './glob/byte-glob.js';
export type { GlobSegment } from './glob/glob-segment.js';
export { PreparedText } from './glob/prepared-text.js';
export { truncateUtf8, utf8Bytes, utf8Length } from './glob/utf8.js';
export { textIsWellFormed } from './glob/well-formed.js';
export { validateHookResult } from './hooks/validate-hook-result.js';
export { validateLifecycleHooks } from './hooks/validate-hooks.js';
export {
  PROBLEM_CODES,
  type Problem,
  type ProblemCode,
  pointerFrom,
  pointerTokens,
  type Validated,
} from './issues/problem.js';
export { combineLayers } from './layers/combine-layers.js';
export { parsePath, textAtPath, textOf, walkPath } from './path/tool-input-path.js';
export { BASELINE_VERSION, type BaselineFinding, baselineFinding } from './permissions/baseline.js';
export {
  BUILT_IN_RULE_SET_IDS,
  BUILT_IN_RULE_SETS,
  type BuiltInRuleSet,
  CAPABILITY_TRAITS,
  isBuiltInRuleSetId,
} from './permissions/built-in-rule-sets.js';
export {
  type ActiveOverlays,
  evaluateGuardrails,
  evaluatePermissions,
  type OwnedOverlay,
  type PermissionOutcome,
  type PermissionRequest,
  type PermissionScope,
} from './permissions/evaluate-permissions.js';
export { permissionLayerDecision } from './permissions/layer-decision.js';
export {
  jsonEqual,
  type PermissionCallFacts,
  permissionRuleMatches,
  ruleCoversTarget,
  valueAtPointer,
} from './permissions/match-rule.js';
export {
  canonicalJson,
  exactCallRule,
  withRememberedRule,
} from './permissions/overlay-document.js';
export {
  compileRootedPattern,
  type RootedPattern,
  rootedPatternProblem,
} from './permissions/rooted-pattern.js';
export {
  type FallbackReason,
  type RuleSetSelection,
  type SelectedRuleSet,
  selectRuleSet,
} from './permissions/select-rule-set.js';
export {
  type CanonicalTarget,
  callTargets,
  canonicalPath,
  canonicalUrl,
  valuesAtPointer,
} from './permissions/targets.js';
export {
  permissionConfigurationProblems,
  validateCustomRuleSet,
  validateOverlayDocument,
  validateToolManifest,
} from './permissions/validate-permissions.js';
export {
  AuditLayerSchema,
  type AuditRecord,
  AuditRecordSchema,
  DeciderSchema,
  type PolicyChange,
  PolicyChangeKindSchema,
  PolicyChangeSchema,
} from './protocol/audit.js';
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
} from './protocol/error-codes.js';
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
} from './protocol/events.js';
export {
  type Failure,
  FailureSchema,
  ROW_FAILURE_CODES,
  type RowFailureCode,
} from './protocol/failure-codes.js';
export {
  AfterSchema,
  ExecutorTaskParams,
  IdSchema,
  LeaseSchema,
  LimitSchema,
  ModeSchema,
  RunParams,
  RunStartShape,
  TaskParams,
  WorkspaceParams,
} from './protocol/inputs.js';
export { jsonStringEnd, jsonTextNestsDeeperThan, MAX_JSON_DEPTH } from './protocol/json-depth.js';
export {
  defineContract,
  type OperationContract,
  type OperationInput,
  type OperationOutput,
} from './protocol/operation.js';
export {
  type AgentApplicationView,
  AgentApplicationViewSchema,
  type CredentialView,
  CredentialViewSchema,
} from './protocol/operations/accounts.js';
export {
  type ApprovalPolicyView,
  ApprovalPolicyViewSchema,
} from './protocol/operations/approval-policy.js';
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
} from './protocol/operations/hooks.js';
export {
  type DeliveryView,
  DeliveryViewSchema,
} from './protocol/operations/notifications.js';
export { type OverlayView, OverlayViewSchema } from './protocol/operations/overlays.js';
export {
  OPERATION_CONTRACTS,
  type OperationContracts,
  type OperationName,
} from './protocol/operations/registry.js';
export {
  RETENTION_MAX_DAYS,
  type RetentionPolicyView,
  RetentionPolicyViewSchema,
} from './protocol/operations/retention.js';
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
} from './protocol/provider.js';
export {
  type JsonValue,
  JsonValueSchema,
  PROTOCOL_SCHEMAS,
  type ProtocolSchemaMeta,
} from './protocol/registry.js';
export { asKeptText } from './protocol/stored-text.js';
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
} from './protocol/subscriptions.js';
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
} from './protocol/views.js';
export type { CompiledRule } from './rules/compiled-rule.js';
export type { Policy, ToolRoute } from './rules/policy.js';
export { compileToolPattern, resolveToolName, type ToolPattern } from './rules/tool-pattern.js';
export { type ValidProfile, validateProfileConfiguration } from './rules/validate-profile.js';
export { type RuleListOptions, validateRuleList } from './rules/validate-rules.js';
export {
  type ApprovalDenied,
  ApprovalDeniedSchema,
  type ApprovalMode,
  ApprovalModeSchema,
  type ApprovalRule,
  ApprovalRuleListSchema,
  ApprovalRuleSchema,
  type Decision,
  type DecisionOutcome,
  DecisionOutcomeSchema,
  DecisionSchema,
  type GrantedBy,
  GrantedBySchema,
  type Origin,
  OriginSchema,
  type Verdict,
  VerdictSchema,
} from './schemas/approval.js';
export {
  HOOK_FEEDBACK_MAX_BYTES,
  HOOK_MAX_CONTINUATIONS_MAX,
  HOOK_OUTPUT_PREVIEW_MAX_BYTES,
  HOOK_TIMEOUT_MS_MAX,
  type HookEvent,
  HookEventSchema,
  type HookInput,
  HookInputSchema,
  type HookResult,
  HookResultSchema,
  type LifecycleHook,
  LifecycleHookSchema,
  type LifecycleHooks,
  LifecycleHooksSchema,
  type StopHook,
  StopHookSchema,
} from './schemas/hooks.js';
export {
  LAYER_VERDICT_STRICTNESS,
  type LayerDecision,
  LayerDecisionSchema,
  type LayerName,
  LayerNameSchema,
  type LayerRuleRef,
  LayerRuleRefSchema,
} from './schemas/layers.js';
export {
  type CustomRuleSet,
  CustomRuleSetSchema,
  MUTATION_TRAITS,
  type OverlayDocument,
  OverlayDocumentSchema,
  type OverlayGroup,
  OverlayGroupSchema,
  type OverlayScope,
  OverlayScopeSchema,
  PermissionConfigurationShape,
  type PermissionRule,
  PermissionRuleSchema,
  type PermissionVerdict,
  PermissionVerdictSchema,
  type Remember,
  type RememberRule,
  RememberRuleSchema,
  RememberSchema,
  RISK_TRAITS,
  type RiskTrait,
  RiskTraitSchema,
  type ToolManifest,
  type ToolManifestEntry,
  ToolManifestEntrySchema,
  ToolManifestSchema,
  type ToolTarget,
  ToolTargetSchema,
} from './schemas/permissions.js';
export {
  DECLARATION_ENVELOPE_MAX_BYTES,
  type ProfileConfiguration,
  ProfileConfigurationSchema,
} from './schemas/profile.js';
// What the command lines of Airlock's CLIs share: durations, the kernel URL, timeouts, progress.
export * from './terminal/index.js';
// What an approval shows of an agent's text: hidden characters and padding as marks.
export { hasHiddenCharacters, shortened, visibleText } from './text/visible-text.js';
export {
  MODE_STRICTNESS,
  type TighteningBase,
  type TighteningRequest,
  type TighteningResult,
  type TighteningWidens,
  tighten,
} from './tighten/tighten.js';
export { inheritedTraceparent, traceparentOf } from './tracing/traceparent.js';
// The routes and feed paths, as `@airlock/core/wire` exports them alone.
export * from './wire.js';
