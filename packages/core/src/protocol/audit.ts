import { z } from 'zod';
import { LayerRuleRefSchema } from '../schemas/layers.js';
import { named } from './registry.js';

/** Who (or what) made a decision. */
export const DeciderSchema = z.enum(['rule', 'person', 'clock', 'hook', 'kernel']);

/**
 * What one policy layer said about a decided call, with the rule's index in
 * that layer and, where the layer has them, the contract list and version or
 * the rule set, scope and Baseline check that decided (core's LayerRuleRef).
 */
export const AuditLayerSchema = z.object({
  layer: z.string(),
  verdict: z.string(),
  rule_index: z.number().int().nullable(),
  list: LayerRuleRefSchema.shape.list,
  contract_version: LayerRuleRefSchema.shape.contract_version,
  rule_set: LayerRuleRefSchema.shape.rule_set,
  scope: LayerRuleRefSchema.shape.scope,
  baseline_check: LayerRuleRefSchema.shape.baseline_check,
  /** What the layer said: the refusal the model reads or what the person reads. */
  detail: z.string().nullable().optional(),
});

/** The kinds of policy change the audit trail records. */
export const PolicyChangeKindSchema = z.enum([
  'profile_declared',
  'contract_published',
  'overlay_replaced',
  'overlay_trusted',
  'rule_remembered',
  'approval_policy_replaced',
  'retention_policy_replaced',
  'contract_removed',
  'credential_created',
  'credential_relabelled',
  'credential_revoked',
  'agent_application_created',
  'agent_application_removed',
]);

/**
 * A change of policy: which document (scope and owner), its digest before and
 * after, and the rule saved (remember) or the contract version published; a
 * document small enough to read in a line (a retention policy) also in full.
 */
export const PolicyChangeSchema = named(
  z.object({
    change: PolicyChangeKindSchema,
    /** `profile` (an application's configuration), `approval_policy`, `retention_policy`, an overlay scope (`user`, `project`, `conversation`), `credential` or `agent_application`. */
    scope: z.string(),
    /** The agent application, conversation or member principal whose document changed; the credential or application made, relabelled, revoked or removed. */
    owner_id: z.string(),
    before_digest: z.string().nullable(),
    after_digest: z.string().nullable(),
    /** The rule saved by approve-and-remember (stored as an allow rule). */
    rule: z.record(z.string(), z.unknown()).optional(),
    /** The action contract version published. */
    contract_version: z.number().int().optional(),
    /** The whole document before the change (null: there was none), where it is small: a retention policy's windows, a credential's label. */
    before: z.record(z.string(), z.unknown()).nullable().optional(),
    /** The whole document after the change, where it is small: a retention policy's windows, a credential's kind, application and label. */
    after: z.record(z.string(), z.unknown()).optional(),
  }),
  { id: 'PolicyChange', description: 'One change of policy, as the audit trail records it.' },
);
/** A change of policy. */
export type PolicyChange = z.infer<typeof PolicyChangeSchema>;

/** One decision of the audit trail: a line of `GET .../audit` and of `airlock audit export`. */
export const AuditRecordSchema = named(
  z.object({
    /** The event's sequence number in its workspace (the export's cursor). */
    seq: z.number().int(),
    /** When it was decided, epoch milliseconds. */
    at: z.number(),
    run_id: z.string(),
    task_key: z.string().nullable(),
    /** The lifecycle event that records the decision, e.g. `task.approved`. */
    event: z.string(),
    /** What was decided, e.g. `granted`, `parked`, `denied`, `approved`, `expired`. */
    decision: z.string(),
    decider: DeciderSchema,
    /** The deciding principal: `member:cred_...`, `policy`, `kernel`, `executor:cred_...`. */
    principal: z.string(),
    tool_name: z.string().nullable(),
    /** For a rule decision: `rule`, `mode` or `origin` granted it; null otherwise. */
    granted_by: z.string().nullable(),
    /** The deciding policy layer of a rule decision (`approval_rules` when no other applied). */
    layer: z.string().nullable(),
    /** 0-based indices of the declared approval rules that matched (rule decisions only). */
    rule_indices: z.array(z.number().int()),
    /** Every layer that applied to a rule decision, each with its deciding rule's index. */
    layers: z.array(AuditLayerSchema),
    /** A refusal's reason, a failure's detail, or a resolution's outcome. */
    detail: z.string().nullable(),
    /** For a change of policy (`policy.changed`): what changed; null for every other record. */
    policy: PolicyChangeSchema.nullable(),
  }),
  { id: 'AuditRecord', description: 'One decision of the audit trail.' },
);
/** An audit record. */
export type AuditRecord = z.infer<typeof AuditRecordSchema>;
