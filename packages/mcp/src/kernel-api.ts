import { inheritedTraceparent, traceparentOf } from '@airlock/core';
import type { RunView, TaskView } from '@airlock/sdk';

/** A refusal from the kernel: its stable code and detail, and the HTTP status. */
export class KernelError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'KernelError';
  }
}

/** True when a value is a {@link KernelError}, optionally with one of the codes. */
export function isKernelError(value: unknown, ...codes: string[]): value is KernelError {
  return value instanceof KernelError && (codes.length === 0 || codes.includes(value.code));
}

/** Where the kernel is and who is calling it. */
export interface KernelAddress {
  url: string;
  token: string;
  /** The workspace (needed for the member and agent run routes). */
  workspaceId?: string | undefined;
}

/**
 * The kernel routes this package uses that the SDK does not cover (profile,
 * conversations, gateway rounds), over REST with one bearer token.
 */
export class KernelApi {
  private readonly base: string;

  constructor(readonly address: KernelAddress) {
    this.base = address.url.replace(/\/+$/, '');
  }

  private get ws(): string {
    if (!this.address.workspaceId) {
      throw new KernelError(400, 'invalid_input', 'a workspace id is needed (--workspace)');
    }
    return `/api/v1/workspaces/${encodeURIComponent(this.address.workspaceId)}`;
  }

  private async send<T>(
    method: string,
    path: string,
    body?: unknown,
    traceparent?: string | null,
  ): Promise<T> {
    let response: Response;
    // The caller's trace context, else the one this process inherited (TRACEPARENT).
    const trace = traceparentOf(traceparent) ?? inheritedTraceparent(process.env);
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.address.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(trace ? { traceparent: trace } : {}),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause =
        (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new KernelError(0, 'unavailable', `cannot reach the kernel at ${this.base} (${cause})`);
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      throw new KernelError(
        response.status,
        'internal',
        `the kernel answered ${response.status} with a body that is not JSON`,
      );
    }
    if (!response.ok) {
      const error = (parsed as { error?: { code?: string; detail?: string } } | null)?.error;
      throw new KernelError(
        response.status,
        error?.code ?? 'internal',
        error?.detail ?? `HTTP ${response.status}`,
      );
    }
    return parsed as T;
  }

  /** Who the credential is: its kind and application (any plane of the workspace). */
  async self(): Promise<{ kind: string; agent_application_id: string | null }> {
    return this.send('GET', `${this.ws}/credentials/self`);
  }

  /**
   * Checks that the credential is one the kernel knows, of this workspace and
   * of the expected plane; an agent credential must also be of the expected
   * application (whose executor serves the calls).
   * @throws KernelError unauthenticated or forbidden.
   */
  async verify(kind: 'agent' | 'member', applicationId: string | null): Promise<void> {
    const self = await this.self();
    if (self.kind !== kind) {
      throw new KernelError(403, 'forbidden', `the credential is ${self.kind}, not ${kind}`);
    }
    if (kind === 'agent' && self.agent_application_id !== applicationId) {
      throw new KernelError(
        403,
        'forbidden',
        `this gateway serves the tools of application ${applicationId ?? '(none)'}; the agent credential is of another application`,
      );
    }
  }

  /** The agent's current profile configuration, or null before its first declaration. */
  async profile(): Promise<Record<string, unknown> | null> {
    const body = await this.send<{ configuration: Record<string, unknown> } | null>(
      'GET',
      '/agent_api/v1/profile/configuration',
    );
    return body?.configuration ?? null;
  }

  /** Replaces the agent's profile configuration (a new version). */
  async putProfile(configuration: Record<string, unknown>): Promise<{ version: number }> {
    return this.send('PUT', '/agent_api/v1/profile/configuration', configuration);
  }

  /** Opens a conversation of the calling agent application. */
  async createConversation(): Promise<{ id: string }> {
    return this.send('POST', '/agent_api/v1/conversations', {});
  }

  /** Starts a turn of a conversation (the profile's configuration, frozen). */
  async startTurn(conversationId: string, body: Record<string, unknown>): Promise<RunView> {
    return this.send(
      'POST',
      `/agent_api/v1/conversations/${encodeURIComponent(conversationId)}/inputs`,
      body,
    );
  }

  /** Creates a standalone run with its own mode and rules. */
  async createRun(body: Record<string, unknown>): Promise<RunView> {
    return this.send('POST', `${this.ws}/runs`, body);
  }

  /**
   * Plants a gateway run's calls, or ends it with a final answer; `traceparent`
   * (the MCP client's, from the request's `_meta`) continues the client's trace.
   */
  async submit(
    runId: string,
    body: { calls: { name: string; input?: unknown; id?: string }[] } | { final: string },
    traceparent?: string | null,
  ): Promise<{ run: RunView; tasks: TaskView[] }> {
    return this.send(
      'POST',
      `${this.ws}/runs/${encodeURIComponent(runId)}/calls`,
      body,
      traceparent,
    );
  }

  /** Cancels a gateway run's call that has not started. */
  async cancelCall(runId: string, taskKey: string): Promise<TaskView> {
    return this.send(
      'POST',
      `${this.ws}/runs/${encodeURIComponent(runId)}/calls/${encodeURIComponent(taskKey)}/cancel`,
      {},
    );
  }

  /** Approves a parked row (member plane): the decision is this credential's. */
  async approve(runId: string, taskKey: string): Promise<TaskView> {
    return this.send('POST', `${this.taskPath(runId, taskKey)}/approve`, {});
  }

  /** Denies a parked row (member plane) with a reason the model reads. */
  async deny(runId: string, taskKey: string, reason: string): Promise<TaskView> {
    return this.send('POST', `${this.taskPath(runId, taskKey)}/deny`, { reason });
  }

  private taskPath(runId: string, taskKey: string): string {
    return `${this.ws}/runs/${encodeURIComponent(runId)}/tasks/${encodeURIComponent(taskKey)}`;
  }

  /** Reads one task row. */
  async task(runId: string, taskKey: string): Promise<TaskView> {
    return this.send('GET', this.taskPath(runId, taskKey));
  }
}
