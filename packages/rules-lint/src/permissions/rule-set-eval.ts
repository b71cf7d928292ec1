import {
  type ActiveOverlays,
  type ApprovalMode,
  combineLayers,
  type Decision,
  evaluatePermissions,
  type LayerDecision,
  type PermissionOutcome,
  permissionLayerDecision,
  type ToolManifest,
} from '@airlock/core';

/** The permission configuration `rules-lint eval --rule-set` reads from a profile file. */
export interface RuleSetEvalConfiguration {
  readonly manifest: ToolManifest | undefined;
  readonly customRuleSets: readonly unknown[] | undefined;
  readonly projectRoot: string | undefined;
}

/** One call under a rule set, as `rules-lint eval --rule-set` takes it. */
export interface RuleSetEvalCall {
  readonly ruleSetId: string;
  readonly mode: ApprovalMode;
  readonly tool: string;
  readonly input: unknown;
  readonly configuration: RuleSetEvalConfiguration;
  readonly overlays: ActiveOverlays;
}

/**
 * Decides one call under a rule set with core's evaluatePermissions and, when
 * the declared rules' decision is given, composes the two as the kernel does
 * (strictest wins). The input schema is not checked here: the kernel does
 * that with a JSON Schema validator before any rule is read.
 */
export function evaluateRuleSetCall(
  call: RuleSetEvalCall,
  base: Decision | undefined,
): {
  decision: Decision | null;
  layer: LayerDecision;
  fallback: PermissionOutcome['fallback'];
  targets: PermissionOutcome['targets'];
} {
  const outcome = evaluatePermissions({
    toolName: call.tool,
    input: call.input,
    manifest: call.configuration.manifest,
    projectRoot: call.configuration.projectRoot,
    ruleSetId: call.ruleSetId,
    customRuleSets: call.configuration.customRuleSets,
    approvalMode: call.mode,
    overlays: call.overlays,
  });
  const layer = permissionLayerDecision(outcome);
  return {
    decision: base ? combineLayers(base, [layer]) : null,
    layer,
    fallback: outcome.fallback,
    targets: outcome.targets,
  };
}
