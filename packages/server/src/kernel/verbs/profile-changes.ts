import { canonicalJson } from '@airlock/core';
import { profileConfigurationText } from '../../store/profiles.js';
import type { Tx } from '../../store/store.js';
import { configurationDigest, recordPolicyChange } from './policy-changes.js';

/**
 * Records a new profile configuration version as a change of policy (its
 * digest before and after) and, when its action contract differs from the
 * previous version's, the contract's publication with its version, or its
 * removal when the new version has none.
 */
export async function recordProfileChange(
  tx: Tx,
  options: {
    workspaceId: string;
    principal: string;
    agentApplicationId: string;
    version: number;
    configuration: Record<string, unknown>;
  },
): Promise<void> {
  const previous =
    options.version > 1
      ? await profileConfigurationText(tx, options.agentApplicationId, options.version - 1)
      : undefined;
  const before = previous ? (JSON.parse(previous) as Record<string, unknown>) : null;
  const base = {
    workspaceId: options.workspaceId,
    principal: options.principal,
  };
  recordPolicyChange(tx, {
    ...base,
    change: {
      change: 'profile_declared',
      scope: 'profile',
      owner_id: options.agentApplicationId,
      before_digest: before ? configurationDigest(before) : null,
      after_digest: configurationDigest(options.configuration),
    },
    detail: `declared version ${options.version} of the profile of ${options.agentApplicationId}`,
  });
  const contract = options.configuration.action_contract;
  const was = before?.action_contract;
  if (contract === undefined || contract === null) {
    // A version without the contract lifts every rule of it: a change of its own on the trail.
    if (was === undefined || was === null) return;
    const lifted = (was as { contract_version?: number }).contract_version;
    recordPolicyChange(tx, {
      ...base,
      change: {
        change: 'contract_removed',
        scope: 'profile',
        owner_id: options.agentApplicationId,
        before_digest: configurationDigest(was),
        after_digest: null,
        ...(typeof lifted === 'number' ? { contract_version: lifted } : {}),
      },
      detail: `removed action contract v${lifted} of ${options.agentApplicationId}`,
    });
    return;
  }
  if (was !== undefined && was !== null && canonicalJson(was) === canonicalJson(contract)) return;
  const version = (contract as { contract_version?: number }).contract_version;
  recordPolicyChange(tx, {
    ...base,
    change: {
      change: 'contract_published',
      scope: 'profile',
      owner_id: options.agentApplicationId,
      before_digest: was === undefined || was === null ? null : configurationDigest(was),
      after_digest: configurationDigest(contract),
      ...(typeof version === 'number' ? { contract_version: version } : {}),
    },
    detail: `published action contract v${version} for ${options.agentApplicationId}`,
  });
}
