import { combineLayers, type Decision, type LayerDecision, resolveToolName } from '@airlock/core';
import type { RunTable } from '../../store/schema.js';
import { actionContractLayer } from './action-contract-layer.js';
import { guardrailsOf, permissionsLayer } from './permissions-layer.js';
import type { LayerCall, PolicyLayer } from './policy-layer.js';

/**
 * The policy layers beside the declared approval rules (DESIGN.md, "Policy
 * layers"): each one that applies to a call says allow, ask or deny, and the
 * strictest wins. A layer registers here with the configuration keys it
 * reads; those keys are frozen on the run at its start, like the rules.
 */

/** Every layer, in tie-break order after the declared rules. */
export const POLICY_LAYERS: readonly PolicyLayer[] = [permissionsLayer, actionContractLayer];

/**
 * Picks the layers' keys out of a configuration (a profile or a create call)
 * for the run to freeze; null when it sets none of them.
 */
export function freezePolicyLayers(
  configuration: Readonly<Record<string, unknown>>,
): Record<string, unknown> | null {
  let frozen: Record<string, unknown> | null = null;
  for (const layer of POLICY_LAYERS) {
    for (const key of layer.configurationKeys) {
      const value = configuration[key];
      if (value === undefined || value === null) continue;
      frozen ??= {};
      frozen[key] = value;
    }
  }
  return frozen;
}

const frozenByRun = new Map<string, { text: string; frozen: Readonly<Record<string, unknown>> }>();
const FROZEN_CACHE_LIMIT = 2000;

/** Freezes a parsed JSON value and everything under it, so no reader can change what others read. */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}

/**
 * The policy-layer configuration frozen on a run, or null for none: parsed once per run and
 * deeply frozen, so core validates a custom rule set once rather than on every call (a frozen
 * set cannot change under its cached validation). The entry is reused only while the run's
 * stored text is the one it was parsed from, so a changed row is never read from a stale entry.
 */
export function frozenOf(
  run: Pick<RunTable, 'id' | 'policy_layers'>,
): Readonly<Record<string, unknown>> | null {
  if (run.policy_layers === null) return null;
  const cached = frozenByRun.get(run.id);
  if (cached !== undefined && cached.text === run.policy_layers) return cached.frozen;
  const frozen = deepFreeze(JSON.parse(run.policy_layers) as Record<string, unknown>);
  if (frozenByRun.size >= FROZEN_CACHE_LIMIT) frozenByRun.clear();
  frozenByRun.set(run.id, { text: run.policy_layers, frozen });
  return frozen;
}

/**
 * Runs every policy layer that applies to a model call and composes the
 * result with the declared rules' decision. The other layers govern what a
 * model asks for, so an author row meets only the workspace's guardrails
 * (an admin's word binds a person's own rows too) and a kernel row the
 * declared rules alone. A run that froze no layer key still meets
 * the guardrails. Each layer reads an aliased call under both its names.
 */
export async function applyPolicyLayers(
  given: Omit<LayerCall, 'frozen' | 'calledName'>,
): Promise<Decision> {
  if (given.call.origin === 'kernel') return given.base;
  const options = { ...given, calledName: resolveToolName(given.call.toolName) };
  const frozen = frozenOf(options.run);
  if (options.call.origin === 'author') {
    const bound = await guardrailsOf({ ...options, frozen: frozen ?? {} });
    return combineLayers(options.base, bound === null ? [] : [bound]);
  }
  const said: LayerDecision[] = [];
  for (const layer of POLICY_LAYERS) {
    if (frozen === null && !layer.appliesWithoutConfiguration) continue;
    const decision = await layer.evaluate({ ...options, frozen: frozen ?? {} });
    if (decision !== null) said.push(decision);
  }
  return combineLayers(options.base, said);
}
