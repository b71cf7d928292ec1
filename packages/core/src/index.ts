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
  patchTextFields,
  shellCommandsOf,
} from './classify/effect-profile.js';
export {
  type ClassifiedSegment,
  classifyShellSegments,
  type ShellLineOptions,
} from './classify/segment-walker.js';
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
export {
  costlyPatternProblem,
  inputSchemaStaticProblem,
  manifestSchemaStaticProblems,
  PATTERN_LENGTH_MAX,
  PATTERN_REPEATS_MAX,
  type SchemaCheckOptions,
  UNIQUE_PAIRWISE_MAX,
} from './manifest/schema-problems.js';
export {
  jsonValuesUpTo,
  SCHEMA_NAME_MAPS,
  SCHEMA_VALUES_MAX,
  schemaSizeProblem,
  schemaValues,
} from './manifest/schema-size.js';
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
export { placedDirectory } from './permissions/working-directory-condition.js';
// The wire contract every plane speaks: operations, inputs, views, events, error codes.
export * from './protocol/index.js';
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
export { whereJsonBroke } from './text/json-break.js';
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
