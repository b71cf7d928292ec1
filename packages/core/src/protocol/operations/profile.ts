import { z } from 'zod';
import { ProfileConfigurationSchema } from '../../schemas/profile.js';
import { defineContract } from '../operation.js';
import { operationRoute } from '../routes.js';
import { ProfileConfigurationViewSchema } from '../views.js';

/**
 * The version a writer read, beside the configuration in the same body (it is
 * no key of a configuration): the put is refused when the profile changed
 * since; 0 when it read none (before the first declaration).
 */
const ExpectedVersionSchema = z.number().int().min(0).optional();

/** PUT /agent_api/v1/profile/configuration */
export const putConfigurationContract = defineContract({
  ...operationRoute('profile.put'),
  summary:
    'Replace the whole profile configuration (validated; refused whole with every problem; 409 stale_digest when expected_version is not the current version)',
  planes: ['agent'],
  // Left open so that core reports every problem of the declaration at once.
  input: z
    .object({
      approval_mode: z.unknown().optional(),
      approval_rules: z.unknown().optional(),
      tool_names: z.unknown().optional(),
      tool_aliases: z.unknown().optional(),
      lifecycle_hooks: z.unknown().optional(),
      action_contract: z.unknown().optional(),
      expected_version: ExpectedVersionSchema,
    })
    .catchall(z.unknown()),
  documented: ProfileConfigurationSchema.extend({ expected_version: ExpectedVersionSchema }),
  output: ProfileConfigurationViewSchema,
  errors: ['invalid_configuration', 'contract_version_not_higher', 'stale_digest'],
});

/** GET /agent_api/v1/profile/configuration */
export const getConfigurationContract = defineContract({
  ...operationRoute('profile.get'),
  summary: 'Read the current profile configuration and its version (null before the first)',
  planes: ['agent'],
  input: z.strictObject({}),
  output: ProfileConfigurationViewSchema.nullable(),
  errors: [],
});
