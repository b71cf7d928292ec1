import { inheritedTraceparent, OWN_WORKSPACE } from '@airlock/core';
import {
  type AirlockError,
  type Call,
  type CallInput,
  type CallOutput,
  createClient,
  ForbiddenError,
  isAirlockError,
  isConnectionError,
  isServerError,
  type RunView,
  type TaskView,
  ValidationError,
} from '@airlock/sdk';

/** True when a value is an error of the SDK (a refusal of the kernel), optionally with one of the codes. */
export function hasErrorCode(value: unknown, ...codes: string[]): value is AirlockError {
  return isAirlockError(value) && (codes.length === 0 || codes.includes(value.code));
}

/** Whether an error says the kernel could not answer now (not that it refused the request). */
export function isKernelOutage(error: unknown): boolean {
  return isConnectionError(error) || isServerError(error);
}

/** Where the kernel is and who is calling it. */
export interface KernelAddress {
  url: string;
  token: string;
  /** The workspace (needed for the member and agent run routes). */
  workspaceId?: string | undefined;
  /**
   * How long each request waits for the kernel's answer, in milliseconds,
   * before it fails with the SDK's DeadlineExceededError (`deadline_exceeded`);
   * default 30 s.
   */
  timeoutMs?: number | undefined;
}

/** What a turn or a standalone run takes besides the address the api fills in. */
type RunStart<N extends 'conversations.input' | 'runs.create'> = Omit<
  CallInput<N>,
  'workspace_id' | 'conversation_id'
>;

/** Makes the {@link KernelApi} of each credential at one kernel address (a bridge holds several). */
export function kernelApis(address: Omit<KernelAddress, 'token'>): (token: string) => KernelApi {
  return (token) =>
    new KernelApi({
      url: address.url,
      token,
      workspaceId: address.workspaceId,
      timeoutMs: address.timeoutMs,
    });
}

/**
 * The kernel operations this package uses that the SDK's handles do not wrap
 * (profile, conversations, gateway rounds), each through the SDK's
 * {@link Call} with one bearer token. Every failure is the SDK's typed error
 * with the kernel's stable code.
 */
export class KernelApi {
  private readonly call: Call;

  constructor(readonly address: KernelAddress) {
    // Without a trace context of its own, a call continues the one this process inherited.
    this.call = createClient({
      url: address.url,
      token: address.token,
      timeoutMs: address.timeoutMs,
      traceparent: () => inheritedTraceparent(process.env) ?? undefined,
    }).call;
  }

  private get workspace_id(): string {
    if (!this.address.workspaceId) {
      throw new ValidationError({
        code: 'invalid_input',
        detail: 'a workspace id is needed (--workspace)',
      });
    }
    return this.address.workspaceId;
  }

  private taskAddress(runId: string, taskKey: string) {
    return { workspace_id: this.workspace_id, run_id: runId, task_key: taskKey };
  }

  /**
   * Who the credential is: its kind and application (any plane). Without a
   * workspace id it is read in the credential's own workspace ({@link OWN_WORKSPACE}).
   */
  self(): Promise<CallOutput<'credentials.self'>> {
    return this.call('credentials.self', {
      workspace_id: this.address.workspaceId ?? OWN_WORKSPACE,
    });
  }

  /**
   * Checks that the credential is one the kernel knows, of this workspace and
   * of the expected plane; an agent credential must also be of the expected
   * application (whose executor serves the calls).
   * @throws UnauthorizedError; ForbiddenError (`forbidden`); ValidationError
   *   (`invalid_input`) without a workspace id, with nothing sent.
   */
  async verify(kind: 'agent' | 'member', applicationId: string | null): Promise<void> {
    // Read in the workspace named: a client credential of any other is refused, never its own.
    const self = await this.call('credentials.self', { workspace_id: this.workspace_id });
    const refuse = (detail: string) =>
      new ForbiddenError({ code: 'forbidden', detail, status: 403 });
    if (self.kind !== kind) throw refuse(`the credential is ${self.kind}, not ${kind}`);
    if (kind === 'agent' && self.agent_application_id !== applicationId) {
      throw refuse(
        `this gateway serves the tools of application ${applicationId ?? '(none)'}; the agent credential is of another application`,
      );
    }
  }

  /**
   * Checks that the credential is an executor's the kernel takes, with a
   * read of one item of its inbox (nothing is claimed).
   * @throws UnauthorizedError; ForbiddenError for a credential of another plane.
   */
  async checkExecutor(): Promise<void> {
    await this.call('executor.inbox', { limit: 1 });
  }

  /** The agent's current profile configuration, or null before its first declaration. */
  async profile(): Promise<CallInput<'profile.put'> | null> {
    return (await this.profileVersion())?.configuration ?? null;
  }

  /**
   * The agent's current profile configuration with its version (what a
   * {@link KernelApi.putProfile} with `expected_version` holds the kernel
   * to), or null before its first declaration.
   */
  async profileVersion(): Promise<{
    version: number;
    configuration: CallInput<'profile.put'>;
  } | null> {
    const stored = await this.call('profile.get', {});
    // What the kernel stored passed the declaration's validation.
    return stored
      ? { version: stored.version, configuration: stored.configuration as CallInput<'profile.put'> }
      : null;
  }

  /**
   * Replaces the agent's profile configuration (a new version); with
   * `expected_version`, only while the profile is still at that version.
   * @throws the SDK's ConflictError (`stale_digest`) when it is not.
   */
  putProfile(configuration: CallInput<'profile.put'>): Promise<CallOutput<'profile.put'>> {
    return this.call('profile.put', configuration);
  }

  /** Opens a conversation of the calling agent application. */
  createConversation(): Promise<CallOutput<'conversations.create'>> {
    return this.call('conversations.create', {});
  }

  /** Starts a turn of a conversation (the profile's configuration, frozen). */
  startTurn(conversationId: string, start: RunStart<'conversations.input'>): Promise<RunView> {
    return this.call('conversations.input', { ...start, conversation_id: conversationId });
  }

  /** Creates a standalone run with its own mode and rules. */
  createRun(start: RunStart<'runs.create'>): Promise<RunView> {
    return this.call('runs.create', { ...start, workspace_id: this.workspace_id });
  }

  /**
   * Plants a gateway run's calls, or ends it with a final answer; `traceparent`
   * (the MCP client's, from the request's `_meta`) continues the client's trace.
   */
  submit(
    runId: string,
    round: Omit<CallInput<'runs.calls'>, 'workspace_id' | 'run_id'>,
    traceparent?: string | null,
  ): Promise<CallOutput<'runs.calls'>> {
    return this.call(
      'runs.calls',
      { ...round, workspace_id: this.workspace_id, run_id: runId },
      { traceparent },
    );
  }

  /** Cancels a gateway run's call that has not started; `reason` is kept on its row. */
  cancelCall(runId: string, taskKey: string, reason?: string | undefined): Promise<TaskView> {
    return this.call('runs.cancelCall', {
      ...this.taskAddress(runId, taskKey),
      ...(reason ? { reason } : {}),
    });
  }

  /**
   * Approves a parked row (member plane): the decision is this credential's.
   * With `version` (the `task.version` the person saw), only that version.
   * @throws the SDK's ConflictError (`version_mismatch`) when the row changed since.
   */
  approve(runId: string, taskKey: string, version?: string): Promise<TaskView> {
    return this.call('decisions.approve', {
      ...this.taskAddress(runId, taskKey),
      ...(version === undefined ? {} : { version }),
    });
  }

  /**
   * Denies a parked row (member plane) with a reason the model reads; with
   * `version`, only that version.
   * @throws the SDK's ConflictError (`version_mismatch`) when the row changed since.
   */
  deny(runId: string, taskKey: string, reason: string, version?: string): Promise<TaskView> {
    return this.call('decisions.deny', {
      ...this.taskAddress(runId, taskKey),
      reason,
      ...(version === undefined ? {} : { version }),
    });
  }

  /** Reads one task row. */
  task(runId: string, taskKey: string): Promise<TaskView> {
    return this.call('tasks.get', this.taskAddress(runId, taskKey));
  }
}
