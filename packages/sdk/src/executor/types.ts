import type { WebSocketConstructor } from '../internal/socket.js';
import type { ConnectionOptions } from '../internal/transport.js';
import type { ClaimView, TaskView } from '../views.js';

/** What a tool handler is given besides the task's input. */
export interface ToolContext {
  /**
   * Aborted when the lease is lost, the task's deadline passes, or the executor closes. Once
   * the claim is lost (or the executor closes with abort) the handler is no longer waited for:
   * what it returns later is dropped, and its slot goes to the next row.
   */
  signal: AbortSignal;
  /** The claimed task row. */
  task: TaskView;
  run_id: string;
  task_key: string;
  /** 1 for the first claim of this row, 2 after a lease expired once, ... */
  attempt: number;
}

/**
 * Serves one tool: gets the task's input, returns the result (any JSON), or
 * throws to fail the task (a {@link ToolError} sets the failure code). A hook
 * tool returns the hook result, such as `{continue: false}`.
 */
export type ToolHandler<Input = unknown> = (
  input: Input,
  context: ToolContext,
) => unknown | Promise<unknown>;

/** Options of {@link createExecutor}. */
export interface ExecutorOptions extends ConnectionOptions {
  /**
   * The tools this executor serves, by name: hook tools are ordinary entries. Past 256 (the
   * most one claim names), it claims for a group of 256 at a time.
   */
  tools: Record<string, ToolHandler<never>>;
  /** The WebSocket class for the cable (default: global, else `ws` in Node). */
  WebSocket?: WebSocketConstructor | undefined;
  /** The lease asked for on each claim, renewed by heartbeats; default 30 s, from 1 s to 24 h. */
  leaseMs?: number | undefined;
  /**
   * How many rows the executor claims for itself at once (from its inbox);
   * default 4, a whole number of 1 or more. Rows handed in with `take` or `runClaimed` (an MCP gateway's
   * own calls) run besides them and take none of these slots.
   */
  concurrency?: number | undefined;
  /** A safety-net look for work between nudges, in whole milliseconds; default 10 s. */
  pollMs?: number | undefined;
  /**
   * Told about failures that have nobody else to tell (a lost lease, a refused commit, what
   * `onRan` or `onCommitted` threw). A listener's throw never keeps a row from committing.
   */
  onError?: ((error: Error, task: TaskView | null) => void) | undefined;
  /** Told of each row this executor committed, as the kernel answered the commit. */
  onCommitted?: ((task: TaskView) => void) | undefined;
  /**
   * Told of each row's outcome as its handler ends, before the commit goes
   * out: the row as it will commit (`succeeded` with its result, or `failed`
   * with its error). A caller that answers from it does not wait for the
   * commit's round trip: the commit is built and sent on the event loop's
   * next turn, so an answer written in this one goes out first. A result
   * the kernel may refuse (over `bodyLimit`, or nested deeper than a request
   * may be), which then commits as the failure `result_too_large` or
   * `invalid_result`, is not told here: only `onCommitted` tells its row,
   * as the kernel recorded it.
   */
  onRan?: ((task: TaskView) => void) | undefined;
  /**
   * The kernel's request body limit in bytes (its `--body-limit`); default
   * 1 MiB, the kernel's own default. Only decides which results `onRan`
   * tells before their commit: a kernel with a larger limit still gets
   * larger results, told once committed.
   */
  bodyLimit?: number | undefined;
  /**
   * Nudges this executor leaves alone (true): rows someone in its process
   * takes by address with `take` (the MCP gateway its own runs' rows). The
   * safety-net poll still claims them if nobody does. What it throws is told
   * to `onError` and the nudge is served.
   */
  leaves?: ((nudge: { run_id: string; task_key: string }) => boolean) | undefined;
}

/** Options of {@link Executor.runClaimed}. */
export interface RunClaimedOptions {
  /**
   * When the request that answered the claim was sent, as
   * `performance.now()` read just before sending it in this process.
   */
  sentAt?: number | undefined;
}

/** A running executor. */
export interface Executor {
  /**
   * Resolves once the cable is connected for the first time; rejects with the
   * typed error when the kernel refuses the token, with a ConnectionError when
   * the kernel cannot be reached (a DeadlineExceededError when it does not
   * answer within `timeoutMs`), with a ServerError or RequestRefusedError when
   * its first answer is a 5xx or a 429 (in these three the cable keeps
   * retrying until closed, and connects later without `ready` telling), or
   * when the executor closes first, or with the error that ended it (see `closed`).
   */
  readonly ready: Promise<void>;
  /**
   * Settles once the executor stopped for good: resolves when `close()` has. Rejects with
   * the typed error, its stable `code` and `status`, when the kernel (or what answers at
   * `url`) refuses the executor in a way asking again would not mend, before or after
   * `ready`: the credential (UnauthorizedError: revoked; ForbiddenError: not an
   * executor's), any other 4xx but 408 and 429 (NotFoundError `not_found` from a url
   * whose routes are elsewhere, a claim refused as it stands), a success that is not the
   * kernel's answer (ServerError `internal`, another web server), or a TLS failure
   * (ConnectionError `connection_failed`). A 404 or another server's page once the cable
   * has connected is tried again instead (a proxy whose route is gone while the kernel
   * redeploys). The executor then stops claiming, polling and
   * reconnecting and tells onError once; rows it runs still try to commit, and `closed`
   * rejects once they ended. Start a new executor once the cause is mended. No answer
   * (refused, reset, timed out), 408, 429 and 5xx are tried again with backoff until
   * `close()`.
   */
  readonly closed: Promise<void>;
  /** How many tasks are running now. */
  readonly running: number;
  /** The lease this executor asks for on each claim (and heartbeats back to). */
  readonly leaseMs: number;
  /**
   * Claims one runnable row by its address (instead of waiting for a nudge),
   * runs it like any claimed row and resolves with the row as committed.
   * Resolves null when the row is not this executor's to run: someone else
   * claimed it, it is not runnable, or the executor is closing.
   * @throws AirlockError when the kernel cannot be reached or refuses the credential.
   */
  take(runId: string, taskKey: string): Promise<TaskView | null>;
  /**
   * Runs a row claimed for this process in another way (a gateway round
   * that asked for the claims of its granted calls) like any claim of its
   * own: heartbeats, the handler, the commit. Pass `sentAt`, the
   * `performance.now()` read just before sending the request that answered
   * the claim, and the lease counts as held for the claim's `lease_ms` from
   * then, whatever the kernel's clock says; without it, for `lease_ms` from
   * this call but no later than the claim's `lease_until` read on this
   * host's clock (see docs/executors.md on clocks). Resolves with the row as
   * committed, or null when the executor closes (a claim handed in while
   * it closes is handed back unrun) or the claim was lost.
   */
  runClaimed(claim: ClaimView, options?: RunClaimedOptions): Promise<TaskView | null>;
  /** Whether this executor runs the row now (claimed, not yet committed). */
  holds(runId: string, taskKey: string): boolean;
  /**
   * Stops claiming, closes the cable and waits for running tasks to commit.
   * A claim asked for before closing and answered afterwards (or handed to
   * {@link Executor.runClaimed} while closing) is handed back without
   * running: its lease is shortened to the kernel's shortest, and close
   * waits for that claim's answer too, so no handler starts after it resolved.
   * With `abort: true` their signals are aborted, their heartbeats stop and
   * nothing more is committed: each lease is shortened to the kernel's
   * shortest (a second), so the kernel hands the rows out again at once,
   * and close resolves within a few seconds even when a handler ignores
   * its signal (its value is then dropped).
   */
  close(options?: { abort?: boolean }): Promise<void>;
}
