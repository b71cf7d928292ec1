import {
  type ActionContract,
  evaluateActionContract,
  patchTextFields,
  type ToolManifest,
  validateActionContract,
} from '@airlock/core';
import { AirlockError } from '../../errors.js';
import type { PolicyLayer } from './policy-layer.js';
import { stricterLayerDecision } from './stricter-layer.js';

const contracts = new Map<string, ActionContract>();
const CONTRACT_CACHE_LIMIT = 2000;

/**
 * The action contract frozen on a run (cached per run: the frozen JSON never changes).
 * @throws AirlockError invalid_configuration when the frozen contract no longer validates.
 */
function contractForRun(runId: string, declared: unknown): ActionContract {
  const cached = contracts.get(runId);
  if (cached) return cached;
  const validated = validateActionContract(declared);
  if (!validated.ok) {
    throw new AirlockError(
      'invalid_configuration',
      'the action contract frozen on this run does not validate',
      validated.problems,
    );
  }
  if (contracts.size >= CONTRACT_CACHE_LIMIT) contracts.clear();
  contracts.set(runId, validated.value);
  return validated.value;
}

/** The run's frozen tool manifest entry for a tool, when the run froze a manifest that declares it. */
export function manifestEntry(
  frozen: Readonly<Record<string, unknown>> | null,
  toolName: string,
): ToolManifest[number] | undefined {
  const manifest = frozen?.tool_manifest as ToolManifest | undefined;
  return manifest?.find((tool) => tool.name === toolName);
}

/**
 * The `action_contract` policy layer (spec 004): the contract declared on the
 * profile or the run's create call decides a model call on its tool name,
 * shell command prefix and action tags, in 004's precedence; in shadow mode
 * it only reminds. The strictest layer wins, so its allow grants nothing
 * the declared rules refuse or park. An aliased call is read under both its
 * names (the resolved one and the one the model called), the stricter binding.
 */
export const actionContractLayer: PolicyLayer = {
  name: 'action_contract',
  configurationKeys: ['action_contract'],
  evaluate({ run, frozen, call, toolName, calledName }) {
    if (frozen.action_contract === undefined) return null;
    const contract = contractForRun(run.id, frozen.action_contract);
    const entry = manifestEntry(frozen, toolName);
    const commandPointers = entry?.commands ?? [];
    const patchFields = patchTextFields(entry);
    const byName = (name: string) =>
      evaluateActionContract(contract, {
        toolName: name,
        toolInput: call.toolInput,
        commandPointers,
        patchFields,
      });
    const resolved = byName(toolName);
    // The stricter reading binds: a tool:<called name> rule can add a refusal or an ask, never lift one.
    return calledName === toolName ? resolved : stricterLayerDecision(resolved, byName(calledName));
  },
};
