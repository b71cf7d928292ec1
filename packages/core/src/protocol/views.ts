import { z } from 'zod';
import { EffectProfileSchema } from '../classify/effect-profile.js';
import {
  ApprovalModeSchema,
  ApprovalRuleSchema,
  DecisionSchema,
  OriginSchema,
} from '../schemas/approval.js';
import { LifecycleHooksSchema } from '../schemas/hooks.js';
import { LayerDecisionSchema, LayerNameSchema } from '../schemas/layers.js';
import { RiskTraitSchema } from '../schemas/permissions.js';
import { FailureSchema } from './failure-codes.js';
import { JsonValueSchema, named } from './registry.js';

/** Every state a task row can be in (DESIGN.md, "Task states"). */
export const TASK_STATES = [
  'ready',
  'runnable',
  'claimed',
  'succeeded',
  'failed',
  'needs_approval',
  'awaiting_input',
  'timed_out',
  'canceled',
] as const;
/** A task row's state. */
export const TaskStateSchema = z.enum(TASK_STATES);
/** A task row's state. */
export type TaskState = z.infer<typeof TaskStateSchema>;

/** Every state a run can be in. */
export const RUN_STATES = ['running', 'completed', 'canceled', 'failed'] as const;
/** A run's state. */
export const RunStateSchema = z.enum(RUN_STATES);
/** A run's state. */
export type RunState = z.infer<typeof RunStateSchema>;

/** What a task row is: a tool call, a question, a lifecycle hook or a compaction summary. */
export const TaskKindSchema = z.enum(['tool', 'ask', 'hook', 'summary']);
/** What a task row is. */
export type TaskKind = z.infer<typeof TaskKindSchema>;

/** A row's failure policy: the model reads the failure, or the run holds for a person. */
export const OnFailureSchema = z.enum(['continue', 'hold']);
/** A row's failure policy. */
export type OnFailure = z.infer<typeof OnFailureSchema>;

/** The three credential kinds, one per plane. */
export const CredentialKindSchema = z.enum(['agent', 'executor', 'member']);
/** A credential kind. */
export type CredentialKind = z.infer<typeof CredentialKindSchema>;

/**
 * What a member credential may do: an `admin` also governs the workspace
 * (credentials, applications, the approval and retention policies, workspace-wide
 * overlays); an `approver` decides calls. Agent and executor credentials have no role.
 */
export const MemberRoleSchema = z.enum(['admin', 'approver']);
/** A member credential's role. */
export type MemberRole = z.infer<typeof MemberRoleSchema>;

/**
 * The effect profile frozen on a parked row: the classifier's profile plus
 * what the kernel adds (the origin, the mode, each matched rule itself, and
 * the deciding policy layer). Open: a policy layer may add fields.
 */
export const EffectProfileViewSchema = named(
  EffectProfileSchema.extend({
    approval_mode: ApprovalModeSchema.optional(),
    origin: OriginSchema.optional(),
    matched_rules: z.array(
      EffectProfileSchema.shape.matched_rules.element.extend({
        rule: ApprovalRuleSchema.optional(),
      }),
    ),
    decided_by_layer: LayerNameSchema.optional(),
    layers: z.array(LayerDecisionSchema).optional(),
    /** The tool's declared risk traits, when the run's tool manifest declares the tool. */
    risk_traits: z.array(RiskTraitSchema).optional(),
  }).loose(),
  { id: 'EffectProfile', description: 'What an approver reads, frozen on a parked row.' },
);
/** The effect profile frozen on a parked row. */
export type EffectProfileView = z.infer<typeof EffectProfileViewSchema>;
/** A rule that matched a parked call, as its frozen effect profile lists it. */
export type MatchedRuleView = EffectProfileView['matched_rules'][number];

/** What the approval stage decided for one row. Open: a policy layer may add fields. */
export const DecisionViewSchema = named(DecisionSchema.loose(), {
  id: 'Decision',
  description: 'What the approval stage decided for one row, and the rules that matched.',
});
/** One approval rule as a run froze it. */
export const ApprovalRuleViewSchema = named(ApprovalRuleSchema, {
  id: 'ApprovalRule',
  description: 'One approval rule: at most six keys.',
});
/** The lifecycle hooks a run froze. */
export const LifecycleHooksViewSchema = named(LifecycleHooksSchema, {
  id: 'LifecycleHooks',
  description: 'Executor tools scheduled at turn_start, pre_compact, post_compact and stop.',
});
/** `{code, detail}` of a failed row or run. */
export const FailureViewSchema = named(FailureSchema, {
  id: 'Failure',
  description: 'Why a row or run failed.',
});

/** Why a run needs a person, and which rows. */
export const AttentionSchema = named(
  z.object({
    reason: z.enum(['approval_required', 'failure_hold', 'awaiting_human']),
    blocked_task_keys: z.array(z.string()),
  }),
  { id: 'Attention', description: 'Why a run needs a person, and which rows.' },
);
/** Why a run needs a person, and which rows. */
export type Attention = z.infer<typeof AttentionSchema>;

/** A run as the API shows it. */
export const RunViewSchema = named(
  z.object({
    id: z.string(),
    workspace_id: z.string(),
    agent_application_id: z.string().nullable(),
    conversation_id: z.string().nullable(),
    regenerated_from: z.string().nullable(),
    /** What the run was started to do: its input text (the goal). */
    input: z.string(),
    state: RunStateSchema,
    approval_mode: ApprovalModeSchema,
    approval_rules: z.array(ApprovalRuleViewSchema),
    tool_names: z.array(z.string()).nullable(),
    tool_aliases: z.record(z.string(), z.string()),
    lifecycle_hooks: LifecycleHooksViewSchema.nullable(),
    config_version: z.number().int().nullable(),
    /** The permission rule set frozen at the run's start (spec 003), null when none was selected. */
    permission_rule_set: z.string().nullable(),
    /** The tool manifest frozen at the run's start (spec 003), null when none was declared. */
    tool_manifest: z.array(JsonValueSchema).nullable(),
    /** The action contract's `contract_version` frozen at the run's start (spec 004), null without one. */
    contract_version: z.number().int().nullable(),
    /** The provider's kind (`scripted`, `openai`). */
    provider: z.string(),
    round: z.number().int(),
    /** Stop-hook continuations taken so far. */
    continuations: z.number().int(),
    /** Compaction thresholds frozen on the run (null: none). */
    context_limit_bytes: z.number().int().nullable(),
    context_limit_tokens: z.number().int().nullable(),
    /** Compactions performed so far. */
    compactions: z.number().int(),
    attention: z.array(AttentionSchema),
    final_answer: z.string().nullable(),
    error: FailureViewSchema.nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
    ended_at: z.number().int().nullable(),
  }),
  { id: 'Run', description: 'A run: its state, frozen configuration and attention.' },
);
/** A run as the API shows it. */
export type RunView = z.infer<typeof RunViewSchema>;

/** A task row as the API shows it. */
/** One member's approval of a parked call, counted toward its quorum. */
export const ApprovalReceiptSchema = z.object({
  /** The approving principal, e.g. `member:cred_x`. */
  principal: z.string(),
  /** The member's name (its credential label); null when it has none. */
  name: z.string().nullable(),
  at: z.number().int(),
});

/** How far a parked call is toward the approvals its workspace's policy asks for. */
export const ApprovalProgressSchema = named(
  z.object({
    /** Distinct approvals the call needs before it runs. */
    required: z.number().int(),
    /** The approvals already given to this version of the row (each member once). */
    received: z.array(ApprovalReceiptSchema),
    /** Index of the approval policy rule that applies; null: the default (one approval by any member). */
    rule_index: z.number().int().nullable(),
    /** Who may decide (`member:cred_…`); null: any member of the workspace. */
    approvers: z.array(z.string()).nullable(),
    /** True when the member who started the run may not approve its calls. */
    no_self_approval: z.boolean(),
    /**
     * False when fewer live members may approve the call than `required` (an approver was
     * revoked since the policy was written, or no_self_approval bars the requester): it waits for
     * its deadline unless the approval policy changes.
     */
    reachable: z.boolean(),
  }),
  {
    id: 'ApprovalProgress',
    description: 'Approvals a parked call has and needs under the approval policy ("1 of 2").',
  },
);
/** Approval progress of a parked call. */
export type ApprovalProgress = z.infer<typeof ApprovalProgressSchema>;

export const TaskViewSchema = named(
  z.object({
    key: z.string(),
    run_id: z.string(),
    round: z.number().int(),
    origin: OriginSchema,
    kind: TaskKindSchema,
    state: TaskStateSchema,
    tool_call_id: z.string().nullable(),
    tool_name: z.string(),
    tool_input: JsonValueSchema,
    /**
     * Where a hooked agent would run the call (its hook's `cwd`): relative paths in the input
     * are read from there. Absent when the agent said none.
     */
    working_directory: z.string().optional(),
    effect_profile: EffectProfileViewSchema.nullable(),
    decision: DecisionViewSchema.nullable(),
    on_failure: OnFailureSchema,
    addressee: z.string().nullable(),
    deadline_at: z.number().int().nullable(),
    lease_until: z.number().int().nullable(),
    attempts: z.number().int(),
    /** What the row produced: the executor's result, a question's answer, a summary; null before. */
    result: JsonValueSchema,
    error: FailureViewSchema.nullable(),
    decided_by: z.string().nullable(),
    /** The decider's name (a member credential's label), where the view resolves names. */
    decided_by_name: z.string().nullable().optional(),
    /** On a parked call in a decision view: approvals given and needed. */
    approvals: ApprovalProgressSchema.optional(),
    /** A question's prompt (kind `ask`). */
    prompt: z.string().nullable(),
    /** A question's offered answers; null for free text. */
    options: z.array(z.string()).nullable(),
    /** True when a question takes several of its options (an array of them). */
    multi: z.boolean(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
    /** The row's version: an approve may send it (or `If-Match`) and is refused if the row changed since. */
    version: z.string(),
  }),
  { id: 'Task', description: 'A task row: the call, its state, decision and result.' },
);
/** A task row as the API shows it. */
export type TaskView = z.infer<typeof TaskViewSchema>;

/** A task row as the tasks door answers it: an authored question carries its token once. */
export const AppendedTaskViewSchema = named(
  TaskViewSchema.extend({
    /** Only on a question: the token that alone answers it (shown once). */
    resolution_token: z.string().optional(),
  }),
  { id: 'AppendedTask', description: 'A row appended through the tasks door.' },
);

/** One row of an executor's inbox. */
export const InboxItemSchema = named(
  z.object({
    kind: z.enum(['tool', 'hook', 'approval', 'ask']),
    run_id: z.string(),
    task_key: z.string(),
    state: TaskStateSchema,
    tool_name: z.string(),
    tool_input: JsonValueSchema,
    effect_profile: EffectProfileViewSchema.nullable(),
    deadline_at: z.number().int().nullable(),
    created_at: z.number().int(),
  }),
  { id: 'InboxItem', description: "One row of an executor's inbox." },
);
/** One row of an executor's inbox. */
export type InboxItem = z.infer<typeof InboxItemSchema>;

/** A successful claim: the claim id, the lease and the row. */
export const ClaimSchema = named(
  z.object({
    claim_id: z.string(),
    lease_until: z.number().int(),
    lease_ms: z.number().int(),
    task: TaskViewSchema,
  }),
  {
    id: 'Claim',
    description:
      "A successful claim: the claim id, the lease and the row. `lease_ms` is the lease granted (at most the one asked for), measured from when the kernel took the claim; `lease_until` is when it lapses on the kernel's clock. Measure `lease_ms` from when you sent the request on your own clock: a kernel clock ahead of yours makes `lease_until` read late.",
  },
);
/** A successful claim. */
export type ClaimView = z.infer<typeof ClaimSchema>;

/** A stored profile configuration version. */
export const ProfileConfigurationViewSchema = named(
  z.object({
    version: z.number().int(),
    configuration: z.record(z.string(), JsonValueSchema),
    created_at: z.number().int(),
  }),
  { id: 'ProfileConfiguration', description: 'A stored profile configuration version.' },
);
/** A stored profile configuration version. */
export type ProfileConfigurationView = z.infer<typeof ProfileConfigurationViewSchema>;
