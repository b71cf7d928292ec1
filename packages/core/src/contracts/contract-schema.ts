import { z } from 'zod';

const RuleListSchema = z
  .array(z.string())
  .describe('Structured rules: action:<tag>, tool:<name> or command-prefix:<text>');

/**
 * An action contract as declared (spec 004), for types and schema documents.
 * The declaration itself is checked by `validateActionContract`, which
 * reports every problem with a pointer and the supported form of a tag.
 */
export const ActionContractSchema = z
  .strictObject({
    contract_version: z.number().int().nonnegative(),
    enforcement: z.enum(['shadow', 'balanced']).optional(),
    authorization: z
      .strictObject({
        forbidden: RuleListSchema.optional(),
        requires_user: RuleListSchema.optional(),
        allowed: RuleListSchema.optional(),
      })
      .optional(),
    must_and_must_not: z.strictObject({ must_not: RuleListSchema.optional() }).optional(),
    constraints: z.union([z.string(), z.array(z.string())]).optional(),
  })
  .describe('An action contract: structured action rules over shell action tags (spec 004)');
/** An action contract as declared. */
export type ActionContractDeclaration = z.infer<typeof ActionContractSchema>;
