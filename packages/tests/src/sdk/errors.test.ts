import {
  type AirlockError,
  ConflictError,
  ConnectionError,
  createClient,
  createExecutor,
  ForbiddenError,
  isAirlockError,
  isConflictError,
  isConnectionError,
  isForbiddenError,
  isLeaseLostError,
  isNotFoundError,
  isRequestRefusedError,
  isServerError,
  isUnauthorizedError,
  isValidationError,
  LeaseLostError,
  NotFoundError,
  RequestRefusedError,
  UnauthorizedError,
  ValidationError,
} from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';

async function failure(promise: Promise<unknown>): Promise<AirlockError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!isAirlockError(error)) throw new Error(`expected an SDK error, got ${String(error)}`);
  return error;
}

const GUARDS = {
  isValidationError,
  isUnauthorizedError,
  isForbiddenError,
  isNotFoundError,
  isConflictError,
  isLeaseLostError,
  isRequestRefusedError,
  isServerError,
  isConnectionError,
};

/** The names of the guards that accept an error: exactly its own (and its base's). */
function guardsFor(error: unknown): string[] {
  return Object.entries(GUARDS)
    .filter(([, guard]) => guard(error))
    .map(([name]) => name);
}

describe('typed errors from a real kernel', () => {
  let kernel: TestKernel;
  /** How far the kernel's clock is set ahead: a step forward lapses the leases it granted. */
  let kernelAheadMs = 0;
  beforeAll(async () => {
    kernel = await startTestKernel({
      bodyLimit: 64 * 1024,
      clock: () => Date.now() + kernelAheadMs,
    });
  });
  afterAll(async () => {
    await kernel?.close();
  });

  const workspace = (token: string, id = kernel.workspace.id) =>
    createClient({ url: kernel.url, token }).workspace(id);

  it('ValidationError carries every problem with a pointer', async () => {
    const ws = workspace(kernel.workspace.tokens.member);
    const error = await failure(
      ws.runs.create(
        // A bad declaration on purpose: the types refuse it, the kernel must too.
        scriptedRun(
          'rules',
          [{ final: 'x' }],
          [{ tool: 'bash', verdict: 'maybe', colour: 'red' } as never],
        ),
      ),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(guardsFor(error)).toEqual(['isValidationError']);
    expect(error).toMatchObject({ code: 'invalid_configuration', status: 422 });
    const problems = (error as ValidationError).problems.map((problem) => problem.pointer);
    expect(problems).toEqual(
      expect.arrayContaining(['/approval_rules/0/verdict', '/approval_rules/0/colour']),
    );
    const input = await failure(
      ws.runs.create({
        ...scriptedRun('ask', [{ final: 'x' }]),
        approval_mode: 'sometimes' as never,
      }),
    );
    expect(input).toMatchObject({ code: 'invalid_input', status: 400 });
    expect((input as ValidationError).problems[0]?.pointer).toBe('/approval_mode');
  });

  it('UnauthorizedError for an unknown token, on calls and on the feed', async () => {
    const ws = workspace('not-a-token');
    const error = await failure(ws.runs.list());
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(guardsFor(error)).toEqual(['isUnauthorizedError']);
    expect(error).toMatchObject({ code: 'unauthenticated', status: 401 });
    const feed = ws.feed();
    expect(await failure(feed.next())).toBeInstanceOf(UnauthorizedError);
    const reported: Error[] = [];
    const executor = createExecutor({
      url: kernel.url,
      token: 'not-a-token',
      tools: {},
      onError: (e) => reported.push(e),
    });
    expect(await failure(executor.ready)).toBeInstanceOf(UnauthorizedError);
    expect(reported[0]).toBeInstanceOf(UnauthorizedError);
    await executor.close();
  });

  it('ForbiddenError for the wrong plane and for another workspace', async () => {
    const executor = workspace(kernel.workspace.tokens.executor);
    const error = await failure(executor.decisions.list());
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(guardsFor(error)).toEqual(['isForbiddenError']);
    expect(error).toMatchObject({ code: 'forbidden', status: 403 });
    const other = await kernel.addWorkspace('other');
    const foreign = workspace(other.tokens.member, kernel.workspace.id);
    expect(await failure(foreign.runs.list())).toBeInstanceOf(ForbiddenError);
  });

  it('NotFoundError for a run or a task that is not there', async () => {
    const ws = workspace(kernel.workspace.tokens.member);
    const error = await failure(ws.runs.run('run_nope').get());
    expect(error).toBeInstanceOf(NotFoundError);
    expect(guardsFor(error)).toEqual(['isNotFoundError']);
    expect(error).toMatchObject({ code: 'run_not_found', status: 404 });
    const created = await ws.runs.create(scriptedRun('ask', [{ tool_calls: [{ name: 'x' }] }]));
    const task = await failure(ws.runs.run(created.id).task('t99'));
    expect(task).toMatchObject({ code: 'task_not_found' });
    await ws.runs.run(created.id).stop();
  });

  it('ConflictError for a decision already made and for a run that ended', async () => {
    const ws = workspace(kernel.workspace.tokens.member);
    const created = await ws.runs.create(scriptedRun('ask', [{ tool_calls: [{ name: 'x' }] }]));
    const [decision] = (await ws.decisions.list()).filter((d) => d.run_id === created.id);
    if (!decision?.isApproval()) throw new Error('expected a parked call');
    await decision.approve();
    const error = await failure(decision.approve());
    expect(error).toBeInstanceOf(ConflictError);
    expect(guardsFor(error)).toEqual(['isConflictError']);
    expect(error).toMatchObject({ code: 'task_not_waiting', status: 409 });
    await ws.runs.run(created.id).stop();
    // Stopping is idempotent (the run answered as it is); abandoning an ended run is a conflict.
    expect((await ws.runs.run(created.id).stop()).state).toBe('canceled');
    const ended = await failure(ws.runs.run(created.id).abandon());
    expect(ended).toBeInstanceOf(ConflictError);
    expect(ended).toMatchObject({ code: 'run_not_running', status: 409 });
  });

  it('LeaseLostError when a claim no longer holds its row, and the handler is aborted', async () => {
    const ws = workspace(kernel.workspace.tokens.member);
    const created = await ws.runs.create(
      scriptedRun('bypass', [{ tool_calls: [{ name: 'slow' }] }, { final: 'ok' }]),
    );
    const errors: Error[] = [];
    let abortReason: unknown = null;
    let started = false;
    const executor = createExecutor({
      url: kernel.url,
      token: kernel.workspace.tokens.executor,
      leaseMs: 1000,
      concurrency: 1,
      tools: {
        slow: (_input, { signal }) =>
          new Promise((resolve) => {
            started = true;
            signal.addEventListener('abort', () => {
              abortReason ??= signal.reason;
              resolve('too late');
            });
          }),
      },
      onError: (error) => errors.push(error),
    });
    // The kernel's clock steps past the lease while the tool runs: its sweeper takes the row
    // back, and the next heartbeat, sent well within the lease on the executor's clock, is refused.
    await eventually(() => started, { what: 'the tool to start' });
    kernelAheadMs = 60_000;
    await eventually(() => errors.length > 0 || null, { what: 'a lost lease' });
    await executor.close({ abort: true });
    const [error] = errors;
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toBeInstanceOf(ConflictError);
    expect(guardsFor(error)).toEqual(['isConflictError', 'isLeaseLostError']);
    expect(error).toMatchObject({ code: 'lease_lost', status: 409 });
    expect(abortReason).toBe(error);
    await ws.runs.run(created.id).stop();
  });

  it('RequestRefusedError for a body over the limit', async () => {
    const ws = workspace(kernel.workspace.tokens.member);
    const error = await failure(
      ws.runs.create({ ...scriptedRun('ask', [{ final: 'x' }]), input: 'x'.repeat(100_000) }),
    );
    expect(error).toBeInstanceOf(RequestRefusedError);
    expect(guardsFor(error)).toEqual(['isRequestRefusedError']);
    expect(error).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  it('ConnectionError when nothing answers', async () => {
    const ws = createClient({ url: 'http://127.0.0.1:9', token: 't' }).workspace('w');
    const error = await failure(ws.runs.list());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(guardsFor(error)).toEqual(['isConnectionError']);
    expect(error).toMatchObject({ code: 'connection_failed', status: null });
  });
});
