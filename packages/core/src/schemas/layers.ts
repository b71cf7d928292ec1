import { z } from 'zod';

/**
 * The policy layers of the approval stage: the declared approval rules
 * (specs 000/001), a permission rule set with its overlays (spec 003) and an
 * action contract over shell action tags (spec 004).
 */
export const LayerNameSchema = z.enum(['approval_rules', 'rule_set', 'action_contract']);
export type LayerName = z.infer<typeof LayerNameSchema>;

/** Strictness of a layer verdict: the strictest layer wins. */
export const LAYER_VERDICT_STRICTNESS = { allow: 0, ask: 1, deny: 2 } as const;

/** Which rule inside a layer decided; every field but `index` is optional because layers differ. */
export const LayerRuleRefSchema = z.object({
  /** The rule's 0-based index in its list; null when the layer's default decided. */
  index: z.number().int().nonnegative().nullable(),
  /** A rule set's id and version (spec 003). */
  rule_set: z.object({ id: z.string(), version: z.string() }).optional(),
  /** Where a rule-set rule came from (spec 003). */
  scope: z.enum(['baseline', 'rule_set', 'user', 'project', 'conversation']).optional(),
  /** An overlay group's index within its scope document (spec 003). */
  group: z.number().int().nonnegative().optional(),
  /** For a guardrail: the member whose user overlay holds it (it binds every run of the workspace). */
  owner: z.string().optional(),
  /**
   * Set when Baseline itself decided (spec 003): its check, or
   * `rule_set_unavailable` when the selected set could not be used. No
   * overlay lifts these, so a remembered rule cannot either.
   */
  baseline_check: z
    .enum([
      'unavailable_tool',
      'undeclared_tool',
      'mutation_outside_project',
      'rule_set_unavailable',
    ])
    .optional(),
  /** The action contract's version (spec 004). */
  contract_version: z.number().int().nonnegative().optional(),
  /** An action contract's list (spec 004). */
  list: z.enum(['forbidden', 'must_not', 'requires_user', 'allowed']).optional(),
  /** The rule as its author wrote it, for a person to read (e.g. `action:destructive`). */
  text: z.string().optional(),
});
export type LayerRuleRef = z.infer<typeof LayerRuleRefSchema>;

/** What one layer said about one call. */
export const LayerDecisionSchema = z.object({
  layer: LayerNameSchema,
  verdict: z.enum(['allow', 'ask', 'deny']),
  rule: LayerRuleRefSchema.nullable(),
  /** For a deny: the refusal the model reads. For an ask: what the person reads. */
  detail: z.string().nullable(),
  /** Non-blocking reminders for the model (shadow mode, natural-language constraints). */
  reminders: z.array(z.string()).default([]),
});
export type LayerDecision = z.infer<typeof LayerDecisionSchema>;
