import { z } from 'zod';
import { ApprovalModeSchema, GrantedBySchema, OriginSchema } from '../schemas/approval.js';
import { LayerDecisionSchema, LayerNameSchema } from '../schemas/layers.js';
import { OverlayScopeSchema } from '../schemas/permissions.js';
import { PolicyChangeSchema } from './audit.js';
import { FailureSchema } from './failure-codes.js';
import { named } from './registry.js';
import {
  AttentionSchema,
  EffectProfileViewSchema,
  RunStateSchema,
  TaskKindSchema,
  TaskStateSchema,
} from './views.js';

/** What every lifecycle event carries besides its type and data. */
const EventBase = {
  /** The workspace-wide sequence number: a feed resumes after it. */
  seq: z.number().int(),
  run_id: z.string(),
  task_key: z.string().nullable(),
  /** Who caused it, e.g. `member:cred_x`, `kernel`; null when nobody in particular. */
  principal: z.string().nullable(),
  /** The principal's name (a member credential's label), where the view resolves names. */
  principal_name: z.string().nullable().optional(),
  created_at: z.number().int(),
};

// Data objects are open: a newer kernel may add a field without breaking an older reader.
const taskData = <S extends z.ZodRawShape>(shape: S) =>
  z.looseObject({ state: TaskStateSchema, ...shape });

function event<T extends string, D extends z.ZodType>(type: T, data: D) {
  return z.object({ ...EventBase, type: z.literal(type), data });
}

const decidedBy = z.string();
/** Where a person decided when outside the API: `Slack, <user>` for a button, `email` for a link. */
const decidedVia = z.string().optional();

/**
 * How many distinct approvals the workspace's approval policy asked of the row
 * when it began to wait (1 when no policy rule covers it). Fixed at that
 * moment: the policy is read again at each decision, so a later change of the
 * policy shows in the row's view (`approvals.required`), not here. Absent on
 * events an older kernel wrote.
 */
const approvalsRequired = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe(
    'approvals the approval policy asked when the row began to wait; after a policy change the row view (approvals.required) is the truth',
  );

// Beside approvals_required on an event that leaves a row waiting (a retry, an edit).
const approvalsReachable = z
  .boolean()
  .optional()
  .describe(
    'false when fewer live members may approve the waiting call than approvals_required (an approver revoked, or no_self_approval bars its requester or editor), as its approvals.reachable says; absent when no approval policy rule covers it and no_self_approval is off',
  );

/** What an approval remembered: the allow rule it wrote into an overlay, told on `task.approved`. */
export const RememberedSchema = z.object({
  scope: OverlayScopeSchema,
  /** Whose overlay: the user, project or conversation id of the scope. */
  owner_id: z.string(),
  /** The rule set the overlay rule lifts (the one that parked the call). */
  rule_set: z.string(),
  rule: z.record(z.string(), z.unknown()),
  /** The overlay document's digest after the write. */
  digest: z.string(),
});
export type Remembered = z.infer<typeof RememberedSchema>;
/** Non-blocking reminders (shadow contracts, natural-language constraints) a decision carried. */
const reminders = z.array(z.string()).optional();

/** Every lifecycle event, by type. */
export const EVENT_SCHEMAS = [
  event(
    'run.created',
    z.looseObject({
      approval_mode: ApprovalModeSchema,
      config_version: z.number().int().nullable(),
      conversation_id: z.string().nullable(),
      agent_application_id: z.string().nullable(),
    }),
  ),
  event(
    'run.round_started',
    z.looseObject({
      round: z.number().int(),
      calls: z.number().int(),
      text: z
        .string()
        .optional()
        .describe(
          "what the model wrote beside the round's tool calls (its plan), when it wrote any",
        ),
    }),
  ),
  event(
    'run.model_read',
    z.looseObject({
      round: z.number().int(),
      fed: z.array(z.looseObject({ task_key: z.string(), content: z.string() })),
    }),
  ),
  event('run.attention_required', AttentionSchema.loose()),
  event('run.attention_cleared', z.looseObject({})),
  event(
    'run.compacted',
    z.looseObject({
      compaction: z.number().int(),
      through_round: z.number().int(),
      summary_bytes: z.number().int(),
    }),
  ),
  event(
    'run.continued',
    z.looseObject({ continuation: z.number().int(), round: z.number().int() }),
  ),
  event(
    'run.completed',
    z.looseObject({ state: RunStateSchema, final_answer: z.string().optional() }),
  ),
  event('run.canceled', z.looseObject({ state: RunStateSchema, error: FailureSchema.optional() })),
  event('run.failed', z.looseObject({ state: RunStateSchema, error: FailureSchema.optional() })),
  // A hooked agent ran a call that did not cross the approval stage (no hook for it): its
  // post-tool hook reported it, or its transcript showed it at the turn's stop (`found_in`;
  // absent on events written before the transcript was read). A transcript may hold a call
  // without its result yet: then `outcome` is null.
  event(
    'run.unstaged_call',
    z.looseObject({
      agent: z.string(),
      tool_name: z.string(),
      tool_use_id: z.string().nullable(),
      outcome: z.enum(['succeeded', 'failed']).nullable(),
      output: z.string(),
      found_in: z.enum(['post_tool', 'transcript']).optional(),
    }),
  ),
  event(
    'run.rule_set_fallback',
    z.looseObject({
      rule_set: z.string(),
      reason: z.string(),
      detail: z.string(),
      applies: z.string(),
    }),
  ),
  event(
    'task.created',
    taskData({
      origin: OriginSchema,
      kind: TaskKindSchema,
      tool_name: z.string(),
      round: z.number().int(),
    }),
  ),
  event(
    'task.granted',
    taskData({
      granted_by: GrantedBySchema.nullable(),
      matched: z.array(z.number().int()),
      layers: z.array(LayerDecisionSchema).optional(),
      /** Present for a row that is not a tool call (a hook, a question). */
      kind: TaskKindSchema.optional(),
      reminders,
    }),
  ),
  event(
    'task.parked',
    taskData({
      addressee: z.string().nullable(),
      deadline_at: z.number().int().nullable(),
      effect_profile: EffectProfileViewSchema,
      approvals_required: approvalsRequired,
      /**
       * False when fewer live members may approve the call than approvals_required (an approver
       * was revoked, or no_self_approval bars the requester), as the row view's
       * approvals.reachable says then. Absent when no approval policy rule covers the call and
       * no_self_approval is off (any live member may approve it), and on events an older kernel
       * wrote.
       */
      approvals_reachable: z.boolean().optional(),
      reminders,
    }),
  ),
  event(
    'task.asked',
    taskData({
      addressee: z.string().nullable(),
      deadline_at: z.number().int().nullable(),
      prompt: z.string(),
      options: z.array(z.string()).nullable(),
      multi: z.boolean(),
      reminders,
    }),
  ),
  event(
    'task.approved',
    taskData({
      decided_by: decidedBy.optional(),
      /** A hooked agent's own user approved it in the agent's prompt. */
      in_agent_prompt: z.boolean().optional(),
      /** Every approval counted toward the quorum, the deciding one last. */
      approved_by: z.array(z.string()).optional(),
      /** Present for a row that is not a tool call (a hook, a question). */
      kind: TaskKindSchema.optional(),
      /** The allow rule the approval remembered, when it asked to. */
      remembered: RememberedSchema.optional(),
      via: decidedVia,
    }),
  ),
  // One member's approval of a call that needs more than one: the row waits on.
  event(
    'task.approval_added',
    taskData({
      decided_by: decidedBy,
      received: z.number().int(),
      required: z.number().int(),
      reachable: z
        .boolean()
        .optional()
        .describe(
          'false when fewer live members may approve the call than required (an approver revoked since), as its approvals.reachable says',
        ),
      via: decidedVia,
    }),
  ),
  // A person changed a parked call's input before approving: both versions are kept.
  event(
    'task.edited',
    taskData({
      decided_by: decidedBy,
      previous_input: z.unknown(),
      tool_input: z.unknown(),
      /** What the approval stage said of the edited call: granted outright, or parked. */
      outcome: z.enum(['granted', 'parked']),
      /** For an edit that still parks: what the policy asks of the edited call (the editor's approval is the first). */
      approvals_required: approvalsRequired,
      approvals_reachable: approvalsReachable,
    }),
  ),
  event(
    'task.denied',
    taskData({
      decided_by: decidedBy.optional(),
      error: FailureSchema.optional(),
      /** For a refusal by policy: the rules that matched and the layers' verdicts. */
      matched: z.array(z.number().int()).optional(),
      layer: LayerNameSchema.optional(),
      layers: z.array(LayerDecisionSchema).optional(),
      reminders,
      via: decidedVia,
    }),
  ),
  event(
    'task.resolved',
    taskData({ decided_by: decidedBy, outcome: z.enum(['succeeded', 'failed']) }),
  ),
  event(
    'task.retried',
    taskData({
      decided_by: decidedBy,
      /** For an expired park that waits again: what the policy asks of it now (the count starts again). */
      approvals_required: approvalsRequired,
      approvals_reachable: approvalsReachable,
    }),
  ),
  event(
    'task.claimed',
    taskData({
      lease_until: z.number().int(),
      attempt: z.number().int(),
      /** A hooked agent runs the call itself. */
      by_agent: z.boolean().optional(),
    }),
  ),
  event('task.succeeded', taskData({ ran_by: z.string().optional() })),
  event('task.failed', taskData({ error: FailureSchema.optional(), reminders })),
  event('task.expired', taskData({ error: FailureSchema.optional() })),
  event('task.lease_expired', taskData({})),
  // Its executor handed the claim back before running the tool: the row is runnable again.
  event('task.released', taskData({})),
  event('task.canceled', taskData({})),
  // A change of policy: `run_id` is the approved row's run for a remember, else empty.
  event('policy.changed', PolicyChangeSchema.extend({ detail: z.string() }).loose()),
  event(
    'task.readdressed',
    taskData({
      addressee: z.string().nullable(),
      previous_addressee: z.string().nullable(),
      reason: z.string(),
      detail: z.string(),
    }),
  ),
  // A notice about this run or row reached a channel (webhook, Slack, email), or was given up.
  event(
    'notification.delivered',
    z.looseObject({
      delivery_id: z.string(),
      channel: z.string(),
      channel_kind: z.enum(['webhook', 'slack', 'email']),
      notified: z.string(),
      attempts: z.number().int(),
    }),
  ),
  event(
    'notification.dead_lettered',
    z.looseObject({
      delivery_id: z.string(),
      channel: z.string(),
      channel_kind: z.enum(['webhook', 'slack', 'email']),
      notified: z.string(),
      attempts: z.number().int(),
      error: z.string(),
    }),
  ),
] as const;

/** One lifecycle event as the feed and the events route show it: a union on `type`. */
export const EventViewSchema = named(z.discriminatedUnion('type', EVENT_SCHEMAS), {
  id: 'Event',
  description: 'One lifecycle event; `data` depends on `type` and may grow new fields.',
});
/** One lifecycle event. */
export type EventView = z.infer<typeof EventViewSchema>;

/** Every lifecycle event type. */
export type EventType = EventView['type'];

/** The keys a type declares, without the open index signature (`[k: string]: unknown`). */
type DeclaredKeys<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K];
};

/**
 * The data an emitter writes for an event type: exactly the fields core
 * declares for it (a reader accepts more, an emitter writes what is declared,
 * so a wrong or unknown field is a compile error where the event is built).
 */
export type EventData<T extends EventType> = DeclaredKeys<Extract<EventView, { type: T }>['data']>;

/** Every lifecycle event type, in declaration order. */
export const EVENT_TYPES = EVENT_SCHEMAS.map((schema) => schema.shape.type.value) as EventType[];

/** A `work_available` nudge on the executor cable: a hint to look, never a claim. */
export const WorkAvailableSchema = named(
  z.object({
    type: z.literal('work_available'),
    kind: z.enum(['tool', 'hook', 'approval', 'ask']),
    run_id: z.string(),
    task_key: z.string(),
    seq: z.number().int(),
  }),
  { id: 'WorkAvailable', description: 'A hint on the executor cable that a row is waiting.' },
);
/** A `work_available` nudge. */
export type WorkAvailable = z.infer<typeof WorkAvailableSchema>;
