import { z } from 'zod';
import { ActionContractSchema } from '../contracts/contract-schema.js';
import { ApprovalModeSchema, ApprovalRuleListSchema } from './approval.js';
import { LifecycleHooksSchema } from './hooks.js';
import { PermissionConfigurationShape } from './permissions.js';

/** Bound on a whole declaration: the UTF-8 bytes of its JSON. */
export const DECLARATION_ENVELOPE_MAX_BYTES = 64 * 1024;

/** The whole profile configuration an agent declares. */
export const ProfileConfigurationSchema = z
  .strictObject({
    approval_mode: ApprovalModeSchema.optional(),
    approval_rules: ApprovalRuleListSchema.optional(),
    tool_names: z.array(z.string().min(1)).optional(),
    tool_aliases: z.record(z.string(), z.string().min(1)).optional(),
    lifecycle_hooks: LifecycleHooksSchema.nullable().optional(),
    ...PermissionConfigurationShape,
    /** Structured action rules over shell action tags (spec 004). */
    action_contract: ActionContractSchema.optional(),
  })
  .describe('An Airlock profile configuration');
export type ProfileConfiguration = z.infer<typeof ProfileConfigurationSchema>;
