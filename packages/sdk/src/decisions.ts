import type { ApprovalProgress, EffectProfileView, Remember } from '@airlock/core';
import { type RequestOptions, splitRequest } from './internal/deadline.js';
import type { OperationsClient } from './internal/transport.js';
import type { TaskView } from './views.js';

/** How a decision reaches the kernel's member plane. */
export interface DecisionContext {
  operations: OperationsClient;
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
   * Answers the question; `outcome: 'failed'` declines it. `signal` and
   * `timeoutMs` apply to this request (see {@link RequestOptions}).
   * @throws ConflictError when it was already answered (or expired); NotFoundError, ForbiddenError;
   * DeadlineExceededError when no answer came in time (it may have been applied);
   * the signal's reason when it aborts.
   */
  answer(
    resolution: { content: unknown; outcome?: 'succeeded' | 'failed' } & RequestOptions,
  ): Promise<TaskView> {
    const [fields, request] = splitRequest(resolution);
    return this.context.operations.decisions.resolve.mutate(
      {
        ...address(this.context, this.task),
        content: fields.content,
        ...(fields.outcome ? { outcome: fields.outcome } : {}),
      },
      request,
    );
  }
}

/** A parked call resting on a person (`needs_approval`), ended by approve or deny. */
export class Approval extends BaseDecision {
  readonly kind = 'approval' as const;
  /** The tool the call names. */
  readonly tool_name: string;
  /** The call's input, as the model composed it. */
  readonly tool_input: unknown;
  /**
   * What an approver reads, as the kernel froze it when the call parked: the
   * rules that parked it, action tags, targets, the deciding layer. Null only
   * on a row that carries none (the kernel freezes one on every park).
   */
  readonly effect_profile: EffectProfileView | null;
  /**
   * Approvals given and needed under the workspace's approval policy ("1 of
   * 2"); null when the kernel did not report them.
   */
  readonly approvals: ApprovalProgress | null;

  constructor(context: DecisionContext, task: TaskView) {
    super(context, task);
    this.tool_name = task.tool_name;
    this.tool_input = task.tool_input;
    this.effect_profile = task.effect_profile;
    this.approvals = task.approvals ?? null;
  }

  /**
   * Approves the call, bound to the version of the row this decision read
   * (or `version`, a `task.version` the person saw; 409 version_mismatch if it
   * changed since). It becomes runnable for executors once the workspace's
   * approval policy has its quorum (the answer's `approvals` says how far it
   * is). With `tool_input` the person approves an edited call: the kernel
   * evaluates it again through every layer and the executor runs the edit.
   * With `remember`, the kernel also keeps an allow rule in the overlay of
   * that scope, for the permission rule set captured when the call was
   * evaluated; without a `rule` it remembers exactly this call. `signal` and
   * `timeoutMs` apply to this request (see {@link RequestOptions}).
   * @example
   * await d.approve({ remember: { scope: 'conversation', rule: { tools: ['bash', 'sh'], arguments: { '/command': 'git push origin main' } } } });
   * await d.approve({ tool_input: { command: 'rm -rf build/cache' } });
   * @throws ConflictError when it was already decided or changed since it was read
   * (`version_mismatch`; or the overlay changed meanwhile: `stale_digest`), or when the
   * approval stage refuses the call as it stands now (`approval_refused`: a guardrail added since it parked);
   * ForbiddenError `approver_not_allowed` / `self_approval_refused` under the approval
   * policy, `admin_required` when an approver remembers at project scope; ValidationError `edit_refused` when a layer refuses the edit,
   * `remember_unavailable` when no rule set evaluated the call; NotFoundError.
   * Nothing changes when it throws, except DeadlineExceededError (no answer
   * came in time: the approval may have been applied) and the signal's reason
   * when it aborts while the request is out.
   */
  approve(
    options: { remember?: Remember; tool_input?: unknown; version?: string } & RequestOptions = {},
  ): Promise<TaskView> {
    const [fields, request] = splitRequest(options);
    const version = fields.version ?? (this.task as { version?: string }).version;
    return this.context.operations.decisions.approve.mutate(
      {
        ...address(this.context, this.task),
        ...(version ? { version } : {}),
        ...(fields.remember ? { remember: fields.remember } : {}),
        ...(fields.tool_input !== undefined
          ? { tool_input: fields.tool_input as TaskView['tool_input'] }
          : {}),
      },
      request,
    );
  }

  /**
   * Denies the call; the model reads the reason. A deny by any member the
   * approval policy lets decide the call ends it, whatever approvals it had.
   * With `version` (`task.version`) only the version the person saw is denied.
   * `signal` and `timeoutMs` apply to this request (see {@link RequestOptions}).
   * @throws ConflictError when it was already decided or changed since `version`;
   * ForbiddenError (`approver_not_allowed` too); NotFoundError; DeadlineExceededError
   * when no answer came in time (it may have been applied); the signal's reason when it aborts.
   */
  deny(options: { reason?: string; version?: string } & RequestOptions = {}): Promise<TaskView> {
    const [fields, request] = splitRequest(options);
    return this.context.operations.decisions.deny.mutate(
      {
        ...address(this.context, this.task),
        ...(fields.reason !== undefined ? { reason: fields.reason } : {}),
        ...(fields.version !== undefined ? { version: fields.version } : {}),
      },
      request,
    );
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
