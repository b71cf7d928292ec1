import type { JsonValue } from '@airlock/core';
import { GATEWAY_CLIENT_MAX } from '@airlock/core/wire';
import type { ClaimView, TaskView } from '@airlock/sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ExecutorBridge } from '../executor-bridge.js';
import { hasErrorCode, isKernelOutage, type KernelApi } from '../kernel-api.js';
import type { CallRequest } from './call-request.js';
import { ClientCancel, cancelReason, cancelRow } from './client-cancel.js';
import type { MemberRunPolicy } from './client-credential.js';
import { untilLeftCallsSettle } from './left-calls.js';
import { RunFeedWatch } from './run-feed-watch.js';
import { SETTLED_STATES, toolResultOf } from './tool-results.js';

/** Options of a {@link GatewaySession}. */
export interface GatewaySessionOptions {
  /** The kernel, as the client's credential (agent or member). */
  api: KernelApi;
  kind: 'agent' | 'member';
  /** Who the client says it is (`name version`), kept on the run's provider. */
  clientName: string;
  memberPolicy?: MemberRunPolicy | undefined;
  /**
   * Aborted when the gateway stops: a closed session stops waiting for the
   * rows its gone client left waiting, and leaves its run open; a
   * cancellation the kernel could not take yet stops being sent again.
   */
  stopping?: AbortSignal | undefined;
  /** How often a waiting call re-reads its row; default 250 ms. */
  pollMs?: number | undefined;
  /**
   * Answer a call this process ran only once the kernel committed its row
   * (one more kernel round trip on each call's path). By default the call
   * answers as soon as the tool returned, and the commit follows at once.
   */
  awaitCommits?: boolean | undefined;
  /**
   * The executor bridge of this process: a granted call of a tool it serves
   * is claimed in its own submit and run here at once, and answers the
   * client as it ran (or as committed, with `awaitCommits`), instead of
   * waiting for a nudge, a claim and the row read back.
   */
  bridge?:
    | Pick<
        ExecutorBridge,
        | 'take'
        | 'runClaimed'
        | 'leaseMs'
        | 'tools'
        | 'holds'
        | 'cancelWith'
        | 'progressTo'
        | 'onCommitted'
        | 'onRan'
        | 'leaveRun'
      >
    | undefined;
}

/** A call that waits long (a park) is read less often: a tenth of its age, at most every 2 s. */
function pollDelay(pollMs: number, waitedMs: number): number {
  return Math.max(pollMs, Math.min(2000, Math.floor(waitedMs / 10)));
}

/**
 * One MCP client session: a gateway run, made on its first call, whose model
 * rows are the client's `tools/call`s. Each call crosses the approval stage;
 * the session waits for its row to settle and answers the MCP result.
 */
export class GatewaySession {
  private runId: string | null = null;
  private creating: Promise<string> | null = null;
  private readonly inFlight = new Set<string>();
  /** Every call not answered yet, from its first line: close waits for them. */
  private readonly calls = new Set<Promise<unknown>>();
  /** Runs of rows on this process's bridge, which close lets finish and commit. */
  private readonly runs = new Set<Promise<unknown>>();
  /** Rows whose call's client went away while they waited (for a person, or another executor), by `run/key`. */
  private readonly left = new Map<string, TaskView>();
  /** The session's waits on its rows, hastened by its run's feed. */
  private readonly feed: RunFeedWatch;

  /**
   * Rows of this session's calls the bridge ran here (as they will commit, or
   * as committed), by `run/key`, until their call reads them.
   */
  private readonly settledHere = new Map<string, TaskView>();
  private readonly stopListening: () => void;
  /** The commits of calls answered before their commit, not yet answered by the kernel. */
  private committing: Promise<unknown> = Promise.resolve();
  /** Gives the nudges of the session's run back to the bridge's drain. */
  private keepNudges: () => void = () => {};
  /** Aborted when the session closes: without the gateway's `stopping`, the cancellations still retried stop. */
  private readonly closed = new AbortController();

  constructor(private readonly options: GatewaySessionOptions) {
    this.feed = new RunFeedWatch(options.api.address);
    const heard = (task: TaskView) => {
      const key = `${task.run_id}/${task.key}`;
      if (!this.inFlight.has(key)) return;
      this.settledHere.set(key, task);
      this.feed.wake(key);
    };
    const stops = [
      options.bridge?.onCommitted(heard),
      options.awaitCommits ? undefined : options.bridge?.onRan(heard),
    ];
    this.stopListening = () => {
      for (const stop of stops) stop?.();
    };
  }

  /** The session's run, once its first call made it. */
  get run(): string | null {
    return this.runId;
  }

  /** The plane of the client's credential: only a member's decision can be recorded inline. */
  get kind(): 'agent' | 'member' {
    return this.options.kind;
  }

  /**
   * Records the client's own user's decision on a parked row, as the
   * member whose credential the client holds, bound to the version of the
   * row they were shown. A row someone else decided first is left as they
   * decided it.
   * @throws the SDK's ConflictError (`version_mismatch`) when the row changed
   *   since (another member edited the call): nothing is recorded.
   */
  async decide(task: TaskView, decision: { approve: true } | { approve: false; reason: string }) {
    try {
      const { run_id, key, version } = task;
      if (decision.approve) await this.options.api.approve(run_id, key, version);
      else await this.options.api.deny(run_id, key, decision.reason, version);
    } catch (error) {
      if (!hasErrorCode(error, 'task_not_waiting')) throw error;
    }
  }

  /** How many calls wait or run now. */
  get pending(): number {
    return this.inFlight.size;
  }

  private async ensureRun(): Promise<string> {
    if (this.runId) return this.runId;
    this.creating ??= (async () => {
      const { api, kind, clientName } = this.options;
      const provider = {
        kind: 'gateway' as const,
        client: clientName.slice(0, GATEWAY_CLIENT_MAX),
      };
      const input = `MCP session of ${clientName}`;
      let run: { id: string };
      if (kind === 'agent') {
        const conversation = await api.createConversation();
        run = await api.startTurn(conversation.id, { input, provider });
      } else {
        const policy: MemberRunPolicy = this.options.memberPolicy ?? {
          approval_mode: 'ask',
          approval_rules: [],
        };
        run = await api.createRun({ input, provider, ...policy });
      }
      this.runId = run.id;
      this.keepNudges();
      this.keepNudges = this.options.bridge?.leaveRun(run.id) ?? (() => {});
      return run.id;
    })().finally(() => {
      this.creating = null;
    });
    return this.creating;
  }

  /**
   * Plants one call. When this process's bridge serves the tool, the round
   * asks for the claim of a granted row, so the call runs here with no
   * claim of its own on the way.
   */
  private async plant(
    name: string,
    input: unknown,
    callId: string | undefined,
    traceparent: string | null,
  ): Promise<{ task: TaskView; claim: ClaimView | null; sentAt: number }> {
    // The session's calls reach the kernel in the order they ran: an earlier commit first.
    await this.committing;
    const runId = await this.ensureRun();
    const bridge = this.options.bridge;
    const claim = bridge?.tools.has(name) ? { claim: { lease_ms: bridge.leaseMs } } : {};
    try {
      // The claim's lease counts from here, on this process's clock (not the kernel's lease_until).
      const sentAt = performance.now();
      const { tasks, claims } = await this.options.api.submit(
        runId,
        // An MCP client's arguments arrived as JSON.
        { calls: [{ name, input: input as JsonValue, id: callId }], ...claim },
        traceparent,
      );
      return { task: tasks[0] as TaskView, claim: claims?.[0] ?? null, sentAt };
    } catch (error) {
      if (!hasErrorCode(error, 'run_not_running')) throw error;
      // A run someone stopped or that ended: the session goes on in a new one. The first call
      // to hear it forgets the run; the others share the new run it makes (or already made).
      if (this.runId === runId) this.runId = null;
      return this.plant(name, input, callId, traceparent);
    }
  }

  /**
   * Sends one call through the approval stage and waits for its row to
   * settle: granted calls run on the bridged server, parked ones wait for a
   * person (telling `onWaiting` as they do), refused ones answer `isError`.
   * An abort for which `cancelRequested()` is true (the client sent
   * `notifications/cancelled`) cancels the row; any other abort (the client
   * went away) leaves a parked row to its clock.
   */
  call(request: CallRequest): Promise<CallToolResult> {
    return this.track(this.calls, this.answer(request));
  }

  /** Keeps a run of the bridge until it finished: the session's close waits for it. */
  private keep<T>(running: Promise<T>): Promise<T> {
    return this.track(this.runs, running);
  }

  /** Holds `work` in `pending` until it settles, and hands it back. */
  private track<T>(pending: Set<Promise<unknown>>, work: Promise<T>): Promise<T> {
    pending.add(work);
    const forget = () => pending.delete(work);
    work.then(forget, forget);
    return work;
  }

  private async answer(request: CallRequest): Promise<CallToolResult> {
    const planted = await this.plant(
      request.name,
      request.input,
      request.callId,
      request.traceparent ?? null,
    );
    let task = planted.task;
    const canceled = new ClientCancel(request);
    let running: Promise<TaskView | null> | null = null;
    const key = `${task.run_id}/${task.key}`;
    this.inFlight.add(key);
    // The executor's drain may claim the row too (a nudge of another run, its poll): the
    // client's cancellation reaches the tool whichever claim runs it.
    const forgetCancel = this.options.bridge?.cancelWith(task.run_id, task.key, canceled.signal);
    const { onProgress } = request;
    const forgetProgress =
      onProgress && this.options.bridge?.progressTo(task.run_id, task.key, onProgress);
    const started = Date.now();
    let unwatch: (() => void) | null = null;
    /** The feed's opens as of the row's last read. */
    let readAsOf = this.feed.opens;
    try {
      // Granted and claimed in its round: it runs here now, and answers as it ran (its commit
      // follows) or, when the session awaits commits, as committed. Canceled by the client
      // meanwhile, it commits as canceled without running.
      if (planted.claim) {
        running = this.keep(this.runClaimedHere(planted.claim, planted.sentAt, canceled.signal));
        if (this.options.awaitCommits) task = (await running) ?? task;
      }
      while (!SETTLED_STATES.includes(task.state)) {
        // Granted, or approved since: run it here now (unless the bridge already does, or the
        // client canceled it: the kernel cancels it below).
        const runnable = task.state === 'runnable' && !this.runningHere(task);
        if (runnable && !(await canceled.requested())) {
          task = (await this.keep(this.runHere(task, canceled.signal))) ?? task;
        }
        const settled = this.settledHere.get(key);
        if (settled) task = settled;
        if (SETTLED_STATES.includes(task.state)) break;
        if (request.signal.aborted) {
          if (await canceled.requested()) {
            // Sent again until it lands, past the session's end: the end waits for the row.
            const until = this.options.stopping ?? this.closed.signal;
            const reason = cancelReason(canceled.signal.reason);
            if (!(await cancelRow(this.options.api, task, until, reason))) this.left.set(key, task);
          } else if (!running && !this.runningHere(task)) this.left.set(key, task);
          return toolResultOf({ ...task, state: 'canceled' });
        }
        // A row no run of this process holds settles elsewhere: the run's feed hastens its reads.
        if (!unwatch && !running && !this.runningHere(task)) unwatch = this.feed.watch(task.run_id);
        if (task.state === 'needs_approval') await request.onWaiting?.(task, Date.now() - started);
        const missed = readAsOf !== this.feed.opens;
        await this.feed.pause(
          key,
          missed ? 0 : pollDelay(this.options.pollMs ?? 250, Date.now() - started),
          request.signal,
        );
        // A row this process runs answers as it ran or committed (settledHere), not from a read.
        if (this.settledHere.has(key) || this.runningHere(task)) continue;
        readAsOf = this.feed.opens;
        task = (await this.reread(task)) ?? task;
      }
      // Answered as it ran: the session's next call waits for this commit, not for the tool.
      if (running && !this.options.awaitCommits) {
        this.committing = Promise.all([this.committing, running]).then(() => undefined);
      }
      return toolResultOf(task);
    } finally {
      unwatch?.();
      forgetCancel?.();
      forgetProgress?.();
      this.inFlight.delete(key);
      this.settledHere.delete(key);
    }
  }

  /**
   * The row as the kernel has it now; null while the kernel cannot answer
   * (unreachable, restarting, its store unavailable). A parked row outlives
   * a kernel outage, so its call waits through one rather than answering an
   * error while the row stays parked and may still run once approved.
   */
  private async reread(task: TaskView): Promise<TaskView | null> {
    try {
      return await this.options.api.task(task.run_id, task.key);
    } catch (error) {
      if (isKernelOutage(error)) return null;
      throw error;
    }
  }

  /** Whether the bridge of this process runs the row now (its commit answers the call). */
  private runningHere(task: TaskView): boolean {
    return this.options.bridge?.holds(task.run_id, task.key) ?? false;
  }

  /**
   * Runs a granted row on this process's bridge and answers the row as
   * committed; null when another executor has it (the call then waits for
   * the row like any other) or the bridge cannot reach the kernel.
   */
  private async runHere(task: TaskView, canceled: AbortSignal): Promise<TaskView | null> {
    if (!this.options.bridge) return null;
    try {
      return await this.options.bridge.take(task.run_id, task.key, {
        canceled,
        toolName: task.tool_name,
      });
    } catch {
      return null;
    }
  }

  /** Runs a row claimed in its round on this process's bridge; null when the bridge did not commit it. */
  private async runClaimedHere(
    claim: ClaimView,
    sentAt: number,
    canceled: AbortSignal,
  ): Promise<TaskView | null> {
    try {
      return (await this.options.bridge?.runClaimed(claim, { sentAt, canceled })) ?? null;
    } catch {
      return null;
    }
  }

  /**
   * Ends the session. It first waits for the calls the client sent (their
   * signals are aborted by then): a call still being planted reaches the
   * kernel, and a granted row this process claimed runs and commits. A row
   * left waiting for a person (a disconnect during a park) is left to them
   * and its clock, and the session waits until it settles, however it does
   * (approved and run, denied, expired). Then the run ends with a final
   * answer. When the gateway stops first (`stopping`), the run is left open.
   * @throws the kernel's error when the final answer or a read of a row left
   *   waiting is refused for another reason.
   */
  async close(): Promise<void> {
    this.closed.abort();
    this.feed.close();
    while (this.calls.size > 0 || this.runs.size > 0) {
      await Promise.allSettled([...this.calls, ...this.runs]);
    }
    this.stopListening();
    this.keepNudges();
    const runId = this.runId;
    if (!runId || this.inFlight.size > 0) return;
    const left = [...this.left.values()].filter((task) => task.run_id === runId);
    const settled = await untilLeftCallsSettle({
      rows: left,
      read: (task) => this.reread(task),
      feed: this.feed,
      stopping: this.options.stopping ?? AbortSignal.abort(),
      pollMs: this.options.pollMs ?? 250,
    });
    if (!settled) return;
    await this.committing.catch(() => {});
    try {
      await this.options.api.submit(runId, { final: 'The MCP session ended.' });
    } catch (error) {
      if (!hasErrorCode(error, 'run_not_running', 'run_busy')) throw error;
    }
  }
}
