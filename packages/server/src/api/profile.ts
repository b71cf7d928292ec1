import { validateProfileConfiguration } from '@airlock/core';
import { z } from 'zod';
import { assertContractVersionRises } from '../kernel/contract-versions.js';
import { AirlockError } from '../kernel/errors.js';
import { principalName } from '../store/accounts.js';
import { currentProfileConfiguration, putProfileConfiguration } from '../store/profiles.js';
import { defineOperation } from './operation.js';

/** A stored profile configuration version. */
export const ProfileConfigurationViewSchema = z.object({
  version: z.number().int(),
  configuration: z.record(z.string(), z.unknown()),
  created_at: z.number().int(),
});

function agentApplication(principal: { agent_application_id: string | null }): string {
  if (!principal.agent_application_id) {
    throw new AirlockError('forbidden', 'this credential belongs to no agent application');
  }
  return principal.agent_application_id;
}

/** PUT /agent_api/v1/profile/configuration */
export const putConfiguration = defineOperation({
  name: 'profile.put',
  summary: 'Replace the whole profile configuration (validated; refused whole with every problem)',
  method: 'PUT',
  path: '/agent_api/v1/profile/configuration',
  planes: ['agent'],
  // The declaration is validated by core, which reports every problem; the shape here is open.
  input: z
    .object({
      approval_mode: z.unknown().optional(),
      approval_rules: z.unknown().optional(),
      tool_names: z.unknown().optional(),
      tool_aliases: z.unknown().optional(),
      lifecycle_hooks: z.unknown().optional(),
      action_contract: z.unknown().optional(),
    })
    .catchall(z.unknown()),
  output: ProfileConfigurationViewSchema,
  async handle({ kernel, principal }, input) {
    const app = agentApplication(principal);
    const validated = validateProfileConfiguration(input);
    if (!validated.ok) {
      throw new AirlockError(
        'invalid_configuration',
        `the configuration has ${validated.problems.length} problem(s); nothing was changed`,
        validated.problems,
      );
    }
    const stored = await kernel.context.store.transaction(async (tx) => {
      const put = await putProfileConfiguration(tx, {
        agentApplicationId: app,
        configuration: input,
        createdBy: principalName(principal),
      });
      await assertContractVersionRises(tx, {
        agentApplicationId: app,
        previousVersion: put.version - 1,
        contract: input.action_contract,
      });
      return put;
    });
    return { version: stored.version, configuration: input, created_at: stored.created_at };
  },
});

/** GET /agent_api/v1/profile/configuration */
export const getConfiguration = defineOperation({
  name: 'profile.get',
  summary: 'Read the current profile configuration and its version',
  method: 'GET',
  path: '/agent_api/v1/profile/configuration',
  planes: ['agent'],
  input: z.strictObject({}),
  output: ProfileConfigurationViewSchema.nullable(),
  async handle({ kernel, principal }) {
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
});
