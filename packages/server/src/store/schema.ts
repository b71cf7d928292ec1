import type { EventType, Origin, RunState, TaskKind, TaskState } from '@airlock/core';
import type { Generated } from 'kysely';

/** Every event type the kernel writes to a run's log: the wire's, from @airlock/core. */
export type { EventType } from '@airlock/core';

/**
 * Where a running run is in its loop: `model` when its next step is due,
 * `tools` while rows it waits on settle (a round's calls, or every outstanding
 * row before an answer is delivered), `hook` while a lifecycle hook or
 * summarizer row settles, `done` once it ended. The kernel's run machine
 * (kernel/machines/run-machine.ts) says which moves between them are allowed.
 */
export const RUN_PHASES = ['model', 'tools', 'hook', 'done'] as const;

/** A run's phase. */
export type RunPhase = (typeof RUN_PHASES)[number];

/**
 * Whose loop composes a run's calls: the kernel's own (it asks a model
 * provider), a gateway client's (an MCP client submits its rounds), or a
 * hooked session's (a coding agent or a framework adapter runs its calls
 * itself and asks through its hooks). Set when the run is made; never changes.
 */
export const RUN_LOOPS = ['kernel', 'gateway', 'hooked'] as const;

/** Whose loop composes a run's calls (see RUN_LOOPS). */
export type RunLoop = (typeof RUN_LOOPS)[number];

/** A coding agent's session: its conversation and the run of its current turn. */
export interface HookSessionTable {
  agent_application_id: string;
  agent: string;
  session_id: string;
  workspace_id: string;
  conversation_id: string;
  run_id: string | null;
  created_at: number;
}

/** A workspace: the tenant boundary every credential and run belongs to. */
export interface WorkspaceTable {
  id: string;
  name: string;
  /** Last event sequence number handed out in this workspace. */
  event_seq: Generated<number>;
  created_at: number;
}

/** An agent application: declares a profile configuration and is the addressee of its parks. */
export interface AgentApplicationTable {
  id: string;
  workspace_id: string;
  name: string;
  /** Current profile configuration version, 0 when none was declared. */
  config_version: Generated<number>;
  created_at: number;
  removed_at: number | null;
}

/** A bearer credential, stored as the SHA-256 of its token. */
export interface CredentialTable {
  id: string;
  workspace_id: string;
  agent_application_id: string | null;
  kind: 'agent' | 'executor' | 'member';
  token_hash: string;
  /** A member credential's role; null for agent and executor credentials. */
  role: 'admin' | 'approver' | null;
  label: string;
  created_at: number;
  revoked_at: number | null;
}

/** One version of an agent application's profile configuration (JSON text). */
export interface ProfileConfigurationTable {
  agent_application_id: string;
  version: number;
  configuration: string;
  created_by: string;
  created_at: number;
}

/** A conversation: each input starts a run-backed turn. */
export interface ConversationTable {
  id: string;
  workspace_id: string;
  agent_application_id: string;
  created_at: number;
}

/** A run, with its frozen approval configuration and loop bookkeeping. */
export interface RunTable {
  id: string;
  workspace_id: string;
  agent_application_id: string | null;
  conversation_id: string | null;
  regenerated_from: string | null;
  /** Whose loop composes the run's calls (see RUN_LOOPS). */
  loop: RunLoop;
  /** Written only by run-machine.ts. */
  state: RunState;
  /** Where the loop is (see RUN_PHASES); written only by run-machine.ts. */
  phase: RunPhase;
  approval_mode: 'bypass' | 'ask' | 'rules';
  approval_rules: string;
  tool_names: string | null;
  tool_aliases: string;
  lifecycle_hooks: string | null;
  /** The policy layers' frozen configuration (specs 003/004) as JSON, null when none applies. */
  policy_layers: string | null;
  config_version: number | null;
  provider: string;
  input: string;
  on_failure: 'continue' | 'hold';
  round: number;
  task_counter: number;
  attention: string | null;
  final_answer: string | null;
  error_code: string | null;
  error_detail: string | null;
  model_lease_owner: string | null;
  model_lease_until: number | null;
  /** Stop-hook continuations taken so far. */
  continuations: number;
  /** A candidate final answer waiting for the stop hook. */
  pending_answer: string | null;
  /** Compaction threshold on the model's context, in UTF-8 bytes; null never compacts. */
  context_limit_bytes: number | null;
  /** Compaction threshold in estimated tokens (UTF-8 bytes / 4, rounded up); null never compacts. */
  context_limit_tokens: number | null;
  /** Compactions performed so far (each one is a hook source). */
  compactions: number;
  /** The summary that replaced the rounds up to `summary_through_round`. */
  summary: string | null;
  summary_through_round: number;
  created_by: string;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
}

/** A task row: one tool call (or, later, an ask or hook) with its state and clocks. */
export interface TaskTable {
  workspace_id: string;
  run_id: string;
  key: string;
  round: number;
  origin: Origin;
  kind: TaskKind;
  /** Written only by the task state machine (move-task.ts). */
  state: TaskState;
  tool_call_id: string | null;
  tool_name: string;
  resolved_tool_name: string | null;
  tool_input: string;
  effect_profile: string | null;
  decision: string | null;
  on_failure: 'continue' | 'hold';
  /** Agent application a park is addressed to; null addresses nobody (member door only). */
  addressee: string | null;
  deadline_at: number | null;
  claim_id: string | null;
  lease_until: number | null;
  attempts: number;
  result: string | null;
  error_code: string | null;
  error_detail: string | null;
  decided_by: string | null;
  prompt: string | null;
  options: string | null;
  /** 1 when a question accepts several options. */
  multi: number | null;
  /** SHA-256 of the token that answers a question authored through the tasks door. */
  resolution_token_hash: string | null;
  /** `event:source` of a lifecycle hook row (or `summary:n`), unique in its run. */
  hook_source: string | null;
  /** The member who appended an author row through the tasks door; null for any other row. */
  appended_by: string | null;
  /**
   * What the model wrote alongside its calls (its plan), on the first row of the round; null
   * on any other row, a round it wrote nothing with, and rows from before the column. Optional
   * only for the rows the kernel builds before planting (the plant writes it afterwards).
   */
  assistant_text?: string | null;
  /**
   * The working directory a hooked agent said for its call (pre_tool `cwd`), which the
   * stage read the call's relative paths from; null when it said none, and on rows from
   * before the column. Optional only for rows built outside the stage.
   */
  working_directory?: string | null;
  created_at: number;
  updated_at: number;
}

/** The durable run event log; `seq` is per workspace and orders every event in it. */
export interface RunEventTable {
  workspace_id: string;
  seq: number;
  run_id: string;
  task_key: string | null;
  /** One of the kernel's event types (written only through a transaction's emit). */
  type: EventType;
  data: string;
  principal: string | null;
  created_at: number;
}

/** One overlay document (spec 003): a scope's groups, its digest and, for a project, the trusted digest. */
export interface OverlayDocumentTable {
  workspace_id: string;
  scope: 'user' | 'project' | 'conversation';
  /** The member principal (user), agent application (project) or conversation. */
  owner_id: string;
  document: string;
  digest: string;
  trusted_digest: string | null;
  trusted_by: string | null;
  updated_by: string;
  updated_at: number;
}

/** A claim lock: the row holding a sequential tool or a mutated path while it is claimed. */
export interface ClaimLockTable {
  workspace_id: string;
  lock_key: string;
  run_id: string;
  task_key: string;
  taken_at: number;
}

/** A workspace's retention policy (days; null keeps forever) and how far its log was pruned. */
export interface RetentionPolicyTable {
  workspace_id: string;
  events_days: number | null;
  runs_days: number | null;
  audit_days: number | null;
  updated_by: string;
  updated_at: number;
  /** The highest sequence number of any pruned event (0: none). */
  pruned_through: Generated<number>;
  /** Every non-audit event created before this time (epoch ms) has been pruned. */
  events_pruned_before: Generated<number>;
}

/**
 * How long each export file of one day was when the pruner last committed a
 * delete, per export directory (the id in its `.airlock-location` file);
 * `sizes` is JSON, file name to bytes.
 */
export interface RetentionExportTable {
  workspace_id: string;
  location: string;
  day: string;
  sizes: string;
  updated_at: number;
}

/** How far retention swept one kind of a workspace's events (`events` or `audit`). */
export interface RetentionSweepTable {
  workspace_id: string;
  kind: string;
  /** Every event of the kind up to here is gone, but for the held runs' (retention_held). */
  through: number;
  updated_at: number;
}

/** A run retention kept events of while it lived: its first kept event of the kind. */
export interface RetentionHeldTable {
  workspace_id: string;
  kind: string;
  run_id: string;
  seq: number;
  created_at: number;
}

/** One notice for one channel in the outbox (issue 27); `id` is its idempotency id. */
export interface NotificationDeliveryTable {
  id: string;
  workspace_id: string;
  run_id: string;
  task_key: string | null;
  /** The event that needed a person (`task.parked`, `task.asked`, ...). */
  event_type: string;
  /** The configured channel's name. */
  channel: string;
  channel_kind: 'webhook' | 'slack' | 'email';
  /** The notice as JSON, frozen when it was enqueued. */
  payload: string;
  state: 'pending' | 'delivered' | 'dead';
  attempts: Generated<number>;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_error: string | null;
  /** Where the channel keeps the notice (a Slack `channel:ts`), for updating it later. */
  external_ref: string | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

/** The Kysely database type. */
/** A workspace's approval policy document (issue 27). */
export interface ApprovalPolicyTable {
  workspace_id: string;
  document: string;
  version: number;
  updated_by: string;
  updated_at: number;
}

/** One member's approval of one version of a parked row. */
export interface TaskApprovalTable {
  workspace_id: string;
  run_id: string;
  task_key: string;
  row_version: string;
  principal: string;
  created_at: number;
}

/** What the database a store was last served from was (store-identity.ts). */
export interface StoreIdentityTable {
  name: string;
  value: string;
  recorded_at: number;
}

export interface Database {
  workspaces: WorkspaceTable;
  agent_applications: AgentApplicationTable;
  credentials: CredentialTable;
  profile_configurations: ProfileConfigurationTable;
  conversations: ConversationTable;
  runs: RunTable;
  tasks: TaskTable;
  run_events: RunEventTable;
  overlay_documents: OverlayDocumentTable;
  claim_locks: ClaimLockTable;
  hook_sessions: HookSessionTable;
  retention_policies: RetentionPolicyTable;
  retention_exports: RetentionExportTable;
  retention_sweeps: RetentionSweepTable;
  retention_held: RetentionHeldTable;
  notification_deliveries: NotificationDeliveryTable;
  approval_policies: ApprovalPolicyTable;
  task_approvals: TaskApprovalTable;
  store_identity: StoreIdentityTable;
}
