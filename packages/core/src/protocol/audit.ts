import { z } from 'zod';
import { named } from './registry.js';

/** Who (or what) made a decision. */
export const DeciderSchema = z.enum(['rule', 'person', 'clock', 'hook', 'kernel']);

/** What one policy layer said about a decided call, with the rule's index in that layer. */
export const AuditLayerSchema = z.object({
  layer: z.string(),
  verdict: z.string(),
  rule_index: z.number().int().nullable(),
});

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
  }),
  { id: 'AuditRecord', description: 'One decision of the audit trail.' },
);
/** An audit record. */
export type AuditRecord = z.infer<typeof AuditRecordSchema>;
