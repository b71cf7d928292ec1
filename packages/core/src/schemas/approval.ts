import { z } from 'zod';
import { LayerDecisionSchema, LayerNameSchema } from './layers.js';

/** How unmatched model calls are treated: granted, parked for a person, or refused. */
export const ApprovalModeSchema = z.enum(['bypass', 'ask', 'rules']);
/** `bypass` < `ask` < `rules` in strictness. */
export type ApprovalMode = z.infer<typeof ApprovalModeSchema>;

/** Who wrote a task row: the model, an author through the tasks door, or the kernel. */
export const OriginSchema = z.enum(['model', 'author', 'kernel']);
export type Origin = z.infer<typeof OriginSchema>;

/** What a matching rule says. */
export const VerdictSchema = z.enum(['allow', 'ask', 'deny']);
export type Verdict = z.infer<typeof VerdictSchema>;

/** One approval rule: at most these six keys. */
export const ApprovalRuleSchema = z
  .strictObject({
    tool: z.string().describe('|-separated anchored globs over the resolved tool name'),
    verdict: VerdictSchema,
    path: z.string().optional().describe('dotted key path into tool_input, e.g. edits.0.path'),
    match: z.string().optional().describe('anchored byte glob over the text at path; needs path'),
    reason: z.string().optional().describe('the denial detail the model reads, first 256 bytes'),
    origin: OriginSchema.optional().describe('whose rows the rule addresses; model by default'),
  })
  .describe('An Airlock approval rule');
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;

/** The rule list, in declaration order. */
export const ApprovalRuleListSchema = z.array(ApprovalRuleSchema);

/** The three ways the approval stage can end for a call. */
export const DecisionOutcomeSchema = z.enum(['granted', 'parked', 'denied']);
export type DecisionOutcome = z.infer<typeof DecisionOutcomeSchema>;

/** What granted a call: the mode, a rule, or the row's origin. */
export const GrantedBySchema = z.enum(['mode', 'rule', 'origin']);
export type GrantedBy = z.infer<typeof GrantedBySchema>;

/** The refusal the model reads for a denied call. */
export const ApprovalDeniedSchema = z.object({
  code: z.literal('approval_denied'),
  detail: z.string(),
});
export type ApprovalDenied = z.infer<typeof ApprovalDeniedSchema>;

/** What the approval stage decided for one call, with the rules that matched. */
export const DecisionSchema = z.object({
  outcome: DecisionOutcomeSchema,
  granted_by: GrantedBySchema.nullable(),
  error: ApprovalDeniedSchema.nullable(),
  matched: z.array(z.number().int().nonnegative()),
  tool_name: z.string(),
  /** The deciding policy layer; absent when only the declared rules applied. */
  layer: LayerNameSchema.optional(),
  /** Every layer that applied, the declared rules first (see layers/layer-decision.ts). */
  layers: z.array(LayerDecisionSchema).optional(),
  /** Non-blocking reminders for the model, from every layer. */
  reminders: z.array(z.string()).optional(),
});
export type Decision = z.infer<typeof DecisionSchema>;
