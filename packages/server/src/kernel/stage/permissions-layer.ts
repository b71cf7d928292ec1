import {
  type ActiveOverlays,
  evaluateGuardrails,
  evaluatePermissions,
  type LayerDecision,
  type OwnedOverlay,
  type PermissionOutcome,
  type PermissionRequest,
  type PermissionRule,
  permissionLayerDecision,
  permissionRuleMatches,
  type ToolManifest,
  type ToolManifestEntry,
} from '@airlock/core';
import { runHasEvent } from '../../store/events.js';
import { activeOverlays } from './active-overlays.js';
import type { LayerCall, PolicyLayer } from './policy-layer.js';
import { stricterLayerDecision } from './stricter-layer.js';
import { inputSchemaProblems } from './tool-input-schema.js';

/** The configuration keys of spec 003 that a run freezes. */
export const PERMISSION_KEYS = [
  'tool_manifest',
  'permission_rule_set',
  'custom_rule_sets',
  'project_root',
] as const;

/** A run's frozen permission configuration. */
export interface FrozenPermissions {
  manifest: ToolManifest | undefined;
  ruleSetId: string | undefined;
  customRuleSets: unknown[] | undefined;
  projectRoot: string | undefined;
}

/** Reads the permission keys out of a run's frozen layer configuration. */
export function frozenPermissions(frozen: Readonly<Record<string, unknown>>): FrozenPermissions {
  return {
    manifest: frozen.tool_manifest as ToolManifest | undefined,
    ruleSetId: frozen.permission_rule_set as string | undefined,
    customRuleSets: frozen.custom_rule_sets as unknown[] | undefined,
    projectRoot: frozen.project_root as string | undefined,
  };
}

/**
 * What the workspace's guardrails alone say of a call (null when none matches): for a
 * run that selected no rule set, and for an author row, which only they bind of this layer.
 * See {@link guardrailDecision}.
 */
export async function guardrailsOf(
  call: Pick<LayerCall, 'tx' | 'run' | 'frozen' | 'call' | 'toolName' | 'calledName'>,
  overlays?: ActiveOverlays,
): Promise<LayerDecision | null> {
  const guardrails = (overlays ?? (await activeOverlays(call.tx, call.run))).guardrails ?? [];
  return guardrailDecision({
    toolName: call.toolName,
    calledName: call.calledName,
    input: call.call.toolInput ?? null,
    frozen: call.frozen,
    guardrails,
    workingDirectory: call.call.workingDirectory,
  });
}

/**
 * What these guardrails say of a call, read under both its names, the
 * resolved one and the one it was called by with any runner qualification
 * stripped (which executors serve): the stricter word binds, so an alias the
 * run declares never slips a call past an admin's guardrail. The run's frozen
 * manifest and project root give a guardrail the tool's traits and targets;
 * relative paths are read from the agent's working directory when it said one.
 * Null when none matches.
 */
export function guardrailDecision(given: {
  toolName: string;
  calledName: string;
  input: unknown;
  frozen: Readonly<Record<string, unknown>>;
  guardrails: readonly OwnedOverlay[];
  workingDirectory?: string | undefined;
}): LayerDecision | null {
  if (given.guardrails.length === 0) return null;
  const config = frozenPermissions(given.frozen);
  const byName = (toolName: string): LayerDecision | null => {
    const bound = evaluateGuardrails({
      toolName,
      input: given.input,
      manifest: config.manifest,
      projectRoot: config.projectRoot,
      guardrails: given.guardrails,
      workingDirectory: given.workingDirectory,
    });
    return bound === null ? null : permissionLayerDecision(bound);
  };
  const called = given.calledName;
  return stricterLayerDecision(
    byName(given.toolName),
    called === given.toolName ? null : byName(called),
  );
}

const fallbackNoted = new Set<string>();

/** Says once on the run's event log that its selected custom set fell back to Baseline. */
async function noteFallback(call: LayerCall, outcome: PermissionOutcome): Promise<void> {
  const { run, tx } = call;
  if (!outcome.fallback || fallbackNoted.has(run.id)) return;
  const earlier = await runHasEvent(tx, {
    workspaceId: run.workspace_id,
    runId: run.id,
    type: 'run.rule_set_fallback',
  });
  if (fallbackNoted.size >= 2000) fallbackNoted.clear();
  fallbackNoted.add(run.id);
  if (earlier) return;
  tx.emit({
    workspace_id: run.workspace_id,
    run_id: run.id,
    task_key: null,
    type: 'run.rule_set_fallback',
    data: {
      rule_set: outcome.ruleSet.id,
      reason: outcome.fallback.reason,
      detail: outcome.fallback.detail,
      applies: 'Baseline alone, without overlays',
    },
    principal: null,
  });
}

function schemaRefusal(entry: ToolManifestEntry, problems: string, ruleSetId: string | undefined) {
  return {
    layer: 'rule_set',
    verdict: 'deny',
    rule: {
      index: null,
      scope: 'baseline',
      text: `input_schema of ${entry.name}`,
      ...(ruleSetId ? { rule_set: { id: ruleSetId, version: 'n/a' } } : {}),
    },
    detail: problems,
    reminders: [],
  } satisfies LayerDecision;
}

/**
 * The spec 003 layer: a call whose input fails its tool's schema is refused
 * as data; then, when a rule set is selected, Baseline, the set and the
 * run's overlays decide (core's evaluatePermissions). The workspace's
 * guardrails bind every model call, even of a run that selected no rule set
 * or declared no manifest; without either and without a matching guardrail
 * the layer does not apply.
 */
export const permissionsLayer: PolicyLayer = {
  name: 'rule_set',
  configurationKeys: PERMISSION_KEYS,
  appliesWithoutConfiguration: true,
  async evaluate(call) {
    const config = frozenPermissions(call.frozen);
    const input = call.call.toolInput ?? null;
    const entry = config.manifest?.find((tool) => tool.name === call.toolName);
    if (entry) {
      const owner = {
        workspaceId: call.run.workspace_id,
        applicationId: call.run.agent_application_id,
      };
      const problems = inputSchemaProblems(owner, entry, input);
      if (problems !== null) return schemaRefusal(entry, problems, config.ruleSetId);
    }
    const overlays = await activeOverlays(call.tx, call.run);
    if (config.ruleSetId === undefined) return guardrailsOf(call, overlays);
    const request = {
      toolName: call.toolName,
      input,
      manifest: config.manifest,
      projectRoot: config.projectRoot,
      workingDirectory: call.call.workingDirectory,
      ruleSetId: config.ruleSetId,
      customRuleSets: config.customRuleSets,
      approvalMode: call.run.approval_mode,
      overlays,
    };
    const outcome = evaluatePermissions(request);
    await noteFallback(call, outcome);
    const decided = permissionLayerDecision(outcome);
    if (call.calledName === call.toolName) return decided;
    // The called name's rule keeps a tie, so the row records the park no remembered allow of
    // the resolved name lifts (remember.ts). A guardrail binds the called name whatever the set says.
    const named = stricterLayerDecision(ruleNamingCalledName(request, call.calledName), decided);
    return stricterLayerDecision(named, await guardrailsOf(call, overlays));
  },
};

/** Whether a permission rule selects a tool by name (`tools` or `tool_names`) and names this one. */
export function namesTool(rule: PermissionRule, toolName: string): boolean {
  if (rule.tools === undefined && rule.tool_names === undefined) return false;
  const byName: PermissionRule = {
    verdict: rule.verdict,
    ...(rule.tools === undefined ? {} : { tools: rule.tools }),
    ...(rule.tool_names === undefined ? {} : { tool_names: rule.tool_names }),
  };
  return permissionRuleMatches(byName, { toolName, entry: undefined, input: null, targets: [] });
}

/**
 * What the rule set, its overlays and the guardrails say of an aliased call under the name it
 * was called by, when a rule naming that name (and not the resolved one) decides it: the call is
 * read as the resolved tool (its manifest entry, traits and targets) renamed, so only a rule's
 * name decides the difference. A default, a Baseline check or a rule naming no tool says nothing
 * here: the resolved name's reading covers those, and an allow of the resolved name stands.
 */
function ruleNamingCalledName(
  request: PermissionRequest,
  calledName: string,
): LayerDecision | null {
  const resolved = request.toolName;
  const entry = request.manifest?.find((tool) => tool.name === resolved);
  const others = request.manifest?.filter(
    (tool) => tool.name !== resolved && tool.name !== calledName,
  );
  const manifest = others && (entry ? [...others, { ...entry, name: calledName }] : others);
  const outcome = evaluatePermissions({ ...request, toolName: calledName, manifest });
  const rule = outcome.rule;
  if (outcome.verdict === 'allow' || rule === undefined) return null;
  if (!namesTool(rule, calledName) || namesTool(rule, resolved)) return null;
  return permissionLayerDecision(outcome);
}
