import { z } from 'zod';
import { ProfileConfigurationSchema } from '../../schemas/profile.js';
import { defineContract } from '../operation.js';
import { operationRoute } from '../routes.js';
import { ProfileConfigurationViewSchema } from '../views.js';

/** PUT /agent_api/v1/profile/configuration */
export const putConfigurationContract = defineContract({
  ...operationRoute('profile.put'),
  summary: 'Replace the whole profile configuration (validated; refused whole with every problem)',
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
    })
    .catchall(z.unknown()),
  documented: ProfileConfigurationSchema,
  output: ProfileConfigurationViewSchema,
  errors: ['invalid_configuration', 'contract_version_not_higher'],
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
