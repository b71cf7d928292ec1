import {
  type ActionTag,
  type ApprovalMode,
  type ApprovalProgress,
  type ApprovalRule,
  buildEffectProfile,
  type EffectProfileView as KernelEffectProfile,
  type Origin,
  type Remember,
  type Verdict,
} from '@airlock/core';
import type { Trpc } from './internal/transport.js';
import type { TaskView } from './views.js';

/** A rule that matched a parked call: its index in the run's rule list, and what it says. */
export interface MatchedRule {
  index: number;
  verdict: Verdict | null;
  /** The rule itself, when the kernel froze it on the park. */
  rule: ApprovalRule | null;
  /** The text the rule read at its path, when the kernel reported it. */
  text: string | null;
}

/** What an approver reads about a parked call (frozen on the row when it parked). */
export interface EffectProfileView {
  tool_name: string;
  tool_input: unknown;
  mode: ApprovalMode | null;
  origin: Origin | null;
  /** The rules that parked it; empty when the mode parked it (`ask` with no allow rule). */
  matched_rules: MatchedRule[];
  /** What the call does (for shell commands): read, write, delete, network, ... */
  action_tags: ActionTag[];
  /** The canonical paths and URLs the call touches. */
  targets: string[];
  /** The policy layer whose verdict parked it; null when the kernel recorded none. */
  decided_by_layer: NonNullable<KernelEffectProfile['decided_by_layer']> | null;
  /** What every policy layer said (rule set, action contract with its list and version, ...). */
  layers: NonNullable<KernelEffectProfile['layers']>;
}

/** How a decision reaches the kernel's member plane. */
export interface DecisionContext {
  trpc: Trpc;
  workspaceId: string;
}

function address(context: DecisionContext, task: TaskView) {
  return { workspace_id: context.workspaceId, run_id: task.run_id, task_key: task.key };
}

abstract class BaseDecision {
  /** The run the task belongs to. */
  readonly run_id: string;
  /** The task's key within its run, such as `t3`. */
  readonly task_key: string;
  /** When the 24 h park clock expires it (epoch ms), if armed. */
  readonly deadline_at: number | null;
  /** The whole task row as the kernel showed it. */
  readonly task: TaskView;
  protected readonly context: DecisionContext;

  constructor(context: DecisionContext, task: TaskView) {
    this.context = context;
    this.task = task;
    this.run_id = task.run_id;
    this.task_key = task.key;
    this.deadline_at = task.deadline_at;
  }

  /** True for a question (`ask`): narrows to {@link Question}. */
  isAsk(): this is Question {
    return this instanceof Question;
  }

  /** True for a parked call: narrows to {@link Approval}. */
  isApproval(): this is Approval {
    return this instanceof Approval;
  }
}

/** A question resting on a person (`awaiting_input`), ended by {@link Question.answer}. */
export class Question extends BaseDecision {
  readonly kind = 'question' as const;
  /** What the person is asked. */
  readonly prompt: string;
  /** The offered answers; empty for a free-text question. */
  readonly options: string[];
  /** True when several options may be picked. */
  readonly multi: boolean;

  constructor(context: DecisionContext, task: TaskView) {
    super(context, task);
    const view = task as TaskView & { prompt?: unknown; options?: unknown; multi?: unknown };
    const input = (task.tool_input ?? {}) as {
      prompt?: unknown;
      options?: unknown;
      multi?: unknown;
    };
    const prompt = view.prompt ?? input.prompt;
    const options = view.options ?? input.options;
    this.prompt = typeof prompt === 'string' ? prompt : '';
    this.options = Array.isArray(options) ? options.map(String) : [];
    this.multi = (view.multi ?? input.multi) === true;
  }

  /**
   * Answers the question; `outcome: 'failed'` declines it.
   * @throws ConflictError when it was already answered (or expired); NotFoundError, ForbiddenError.
   */
  answer(resolution: { content: unknown; outcome?: 'succeeded' | 'failed' }): Promise<TaskView> {
    return this.context.trpc.decisions.resolve.mutate({
      ...address(this.context, this.task),
      content: resolution.content,
      ...(resolution.outcome ? { outcome: resolution.outcome } : {}),
    });
  }
}

/** A parked call resting on a person (`needs_approval`), ended by approve or deny. */
export class Approval extends BaseDecision {
  readonly kind = 'approval' as const;
  /** The tool the call names. */
  readonly tool_name: string;
  /** The call's input, as the model composed it. */
  readonly tool_input: unknown;
  /** What an approver reads: the rules that parked it, action tags, targets. */
  readonly effect_profile: EffectProfileView;
  /**
   * Approvals given and needed under the workspace's approval policy ("1 of
   * 2"); null when the kernel did not report them.
   */
  readonly approvals: ApprovalProgress | null;

  constructor(context: DecisionContext, task: TaskView) {
    super(context, task);
    this.tool_name = task.tool_name;
    this.tool_input = task.tool_input;
    this.effect_profile = readEffectProfile(task);
    this.approvals = task.approvals ?? null;
  }

  /**
   * Approves the call, bound to the version of the row this decision read.
   * It becomes runnable for executors once the workspace's approval policy
   * has its quorum (the answer's `approvals` says how far it is). With
   * `tool_input` the person approves an edited call: the kernel evaluates it
   * again through every layer and the executor runs the edit. With
   * `remember`, the kernel also keeps an allow rule in the overlay of that
   * scope, for the permission rule set captured when the call was evaluated;
   * without a `rule` it remembers exactly this call.
   * @example
   * await d.approve({ remember: { scope: 'conversation', rule: { tools: ['bash'], argument_patterns: { '/command': 'git push origin *' } } } });
   * await d.approve({ tool_input: { command: 'rm -rf build/cache' } });
   * @throws ConflictError when it was already decided or changed since it was read
   * (`version_mismatch`; or the overlay changed meanwhile: `stale_digest`);
   * ForbiddenError `approver_not_allowed` / `self_approval_refused` under the approval
   * policy; ValidationError `edit_refused` when a layer refuses the edit,
   * `remember_unavailable` when no rule set evaluated the call; NotFoundError.
   * Nothing changes when it throws.
   */
  approve(options: { remember?: Remember; tool_input?: unknown } = {}): Promise<TaskView> {
    const version = (this.task as { version?: string }).version;
    return this.context.trpc.decisions.approve.mutate({
      ...address(this.context, this.task),
      ...(version ? { version } : {}),
      ...(options.remember ? { remember: options.remember } : {}),
      ...(options.tool_input !== undefined
        ? { tool_input: options.tool_input as TaskView['tool_input'] }
        : {}),
    });
  }

  /**
   * Denies the call; the model reads the reason. A deny by any member the
   * approval policy lets decide the call ends it, whatever approvals it had.
   * @throws ConflictError when it was already decided; ForbiddenError
   * (`approver_not_allowed` too); NotFoundError.
   */
  deny(options: { reason?: string } = {}): Promise<TaskView> {
    return this.context.trpc.decisions.deny.mutate({
      ...address(this.context, this.task),
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
    });
  }
}

/** A task resting on a person: a {@link Question} or an {@link Approval}. */
export type Decision = Question | Approval;

/** True when a task row rests on a person. */
export function isWaiting(task: TaskView): boolean {
  return task.state === 'needs_approval' || task.state === 'awaiting_input';
}

/** Wraps a waiting task row as its decision. */
export function toDecision(context: DecisionContext, task: TaskView): Decision {
  return task.state === 'awaiting_input' || task.kind === 'ask'
    ? new Question(context, task)
    : new Approval(context, task);
}

function readMatchedRules(raw: unknown): MatchedRule[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((entry): MatchedRule[] => {
    if (entry === null || typeof entry !== 'object') return [];
    const item = entry as { index?: unknown; verdict?: unknown; rule?: unknown; text?: unknown };
    const rule = item.rule && typeof item.rule === 'object' ? (item.rule as ApprovalRule) : null;
    const verdict = (typeof item.verdict === 'string' ? item.verdict : rule?.verdict) ?? null;
    return [
      {
        index: typeof item.index === 'number' ? item.index : -1,
        verdict: verdict as Verdict | null,
        rule,
        text: typeof item.text === 'string' ? item.text : null,
      },
    ];
  });
}

/**
 * Reads the effect profile frozen on a parked row. Where the kernel froze no
 * action tags or targets, they are derived here with core's classifier.
 */
export function readEffectProfile(task: TaskView): EffectProfileView {
  const frozen = (task.effect_profile ?? {}) as Record<string, unknown>;
  const toolName = typeof frozen.tool_name === 'string' ? frozen.tool_name : task.tool_name;
  const toolInput = 'tool_input' in frozen ? frozen.tool_input : task.tool_input;
  const mode = (frozen.mode ?? frozen.approval_mode ?? null) as ApprovalMode | null;
  const matched = readMatchedRules(frozen.matched_rules);
  const derived =
    Array.isArray(frozen.action_tags) && Array.isArray(frozen.targets)
      ? { action_tags: frozen.action_tags as ActionTag[], targets: frozen.targets as string[] }
      : buildEffectProfile({ toolName, toolInput, mode: mode ?? 'ask', matchedRules: [] });
  return {
    tool_name: toolName,
    tool_input: toolInput,
    mode,
    origin: (frozen.origin as Origin | undefined) ?? task.origin,
    matched_rules: matched,
    action_tags: derived.action_tags,
    targets: derived.targets,
    decided_by_layer: (frozen.decided_by_layer as EffectProfileView['decided_by_layer']) ?? null,
    layers: Array.isArray(frozen.layers) ? (frozen.layers as EffectProfileView['layers']) : [],
  };
}
