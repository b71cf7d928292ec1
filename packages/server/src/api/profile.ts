import { OPERATION_CONTRACTS, validateProfileConfiguration } from '@airlock/core';
import { AirlockError } from '../errors.js';
import { assertContractVersionRises } from '../kernel/stage/contract-versions.js';
import { manifestSchemaProblems } from '../kernel/stage/tool-input-schema.js';
import { recordProfileChange } from '../kernel/verbs/profile-changes.js';
import { principalName } from '../store/accounts.js';
import { currentProfileConfiguration, putProfileConfiguration } from '../store/profiles.js';
import { implement } from './operation.js';
import { assertPolicyTextIsUnicode } from './policy-text.js';

function agentApplication(principal: { agent_application_id: string | null }): string {
  if (!principal.agent_application_id) {
    throw new AirlockError('forbidden', 'this credential belongs to no agent application');
  }
  return principal.agent_application_id;
}

/**
 * PUT /agent_api/v1/profile/configuration. `expected_version` rides beside the
 * configuration and is neither validated nor stored with it.
 */
export const putConfiguration = implement(
  OPERATION_CONTRACTS['profile.put'],
  async ({ kernel, principal }, { expected_version: expectedVersion, ...input }) => {
    const app = agentApplication(principal);
    assertPolicyTextIsUnicode(input);
    const validated = validateProfileConfiguration(input);
    const problems = [
      ...(validated.ok ? [] : validated.problems),
      ...manifestSchemaProblems(
        { workspaceId: principal.workspace_id, applicationId: app },
        input.tool_manifest,
      ),
    ];
    if (problems.length > 0) {
      throw new AirlockError(
        'invalid_configuration',
        `the configuration has ${problems.length} problem(s); nothing was changed`,
        problems,
      );
    }
    const stored = await kernel.context.store.transaction(async (tx) => {
      const put = await putProfileConfiguration(tx, {
        agentApplicationId: app,
        configuration: input,
        createdBy: principalName(principal),
        expectedVersion,
      });
      await assertContractVersionRises(tx, {
        agentApplicationId: app,
        previousVersion: put.version - 1,
        contract: input.action_contract,
      });
      await recordProfileChange(tx, {
        workspaceId: principal.workspace_id,
        principal: principalName(principal),
        agentApplicationId: app,
        version: put.version,
        configuration: input,
      });
      return put;
    });
    return { version: stored.version, configuration: input, created_at: stored.created_at };
  },
);

/** GET /agent_api/v1/profile/configuration */
export const getConfiguration = implement(
  OPERATION_CONTRACTS['profile.get'],
  async ({ kernel, principal }) => {
    const current = await currentProfileConfiguration(
      kernel.context.store,
      agentApplication(principal),
    );
    return current
      ? {
          version: current.version,
          configuration: current.configuration,
          created_at: current.created_at,
        }
      : null;
  },
);
