import { createServer } from 'node:net';
import type { AuditRecord, RunView, TaskView } from '@airlock/core';
import {
  type CallInput,
  ConnectionError,
  createClient,
  ForbiddenError,
  NotFoundError,
  ValidationError,
} from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { eventually, scriptedRun, startTestKernel, type TestKernel } from '../support/kernel.js';

/** A loopback port nothing listens on: bound once to learn it, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Compile-time checks only: never called, the compiler refuses the marked lines. */
function typedByTheContracts(client: ReturnType<typeof createClient>): void {
  // @ts-expect-error a field the operation does not take
  void client.call('runs.get', { workspace_id: 'w', run_id: 'r', state: 'running' });
  // @ts-expect-error a path parameter left out
  void client.call('decisions.approve', { workspace_id: 'w', run_id: 'r' });
  // @ts-expect-error an operation that does not exist
  void client.call('runs.delete', { workspace_id: 'w' });
  void client.call('retention.put', {
    workspace_id: 'w',
    // @ts-expect-error a field of the wrong type
    events_days: '90',
    runs_days: null,
    audit_days: null,
  });
}

describe('client.call against a real kernel', () => {
  let kernel: TestKernel;
  let workspaceId: string;
  const requests: { method: string; url: string }[] = [];
  /** The global fetch, noting each request so the tests can see what went over the wire. */
  const noting: typeof fetch = (input, init) => {
    requests.push({ method: init?.method ?? 'GET', url: String(input) });
    return fetch(input, init);
  };
  const member = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member, fetch: noting });

  beforeAll(async () => {
    kernel = await startTestKernel();
    workspaceId = kernel.workspace.id;
  });
  afterAll(async () => {
    await kernel?.close();
  });

  it('sends each operation to the REST route its contract declares, typed by it', async () => {
    expect(typedByTheContracts).toBeTypeOf('function');
    const client = member();
    const input: CallInput<'runs.create'> = {
      workspace_id: workspaceId,
      ...scriptedRun('ask', [{ tool_calls: [{ name: 'bash', input: { command: 'ls' } }] }]),
    };
    requests.length = 0;
    const created = await client.call('runs.create', input);
    expectTypeOf(created).toEqualTypeOf<RunView>();
    expect(created.state).toBe('running');
    expect(requests).toEqual([
      { method: 'POST', url: `${kernel.url}/api/v1/workspaces/${workspaceId}/runs` },
    ]);

    const parked = await eventually(async () => {
      const { tasks } = await client.call('tasks.list', {
        workspace_id: workspaceId,
        run_id: created.id,
      });
      return tasks.find((task) => task.state === 'needs_approval');
    });
    requests.length = 0;
    const approved = await client.call('decisions.approve', {
      workspace_id: workspaceId,
      run_id: created.id,
      task_key: parked.key,
    });
    expectTypeOf(approved).toEqualTypeOf<TaskView>();
    expect(approved.state).not.toBe('needs_approval');
    expect(requests[0]).toEqual({
      method: 'POST',
      url: `${kernel.url}/api/v1/workspaces/${workspaceId}/runs/${created.id}/tasks/${parked.key}/approve`,
    });

    requests.length = 0;
    const listed = await client.call('runs.list', {
      workspace_id: workspaceId,
      state: 'running',
      limit: 5,
    });
    expect(listed.runs.map((run) => run.id)).toContain(created.id);
    expect(requests[0]).toEqual({
      method: 'GET',
      url: `${kernel.url}/api/v1/workspaces/${workspaceId}/runs?state=running&limit=5`,
    });
    const stopped = await client.call('runs.stop', {
      workspace_id: workspaceId,
      run_id: created.id,
    });
    expect(stopped.state).not.toBe('running');
  });

  it('gathers a JSON-lines answer back into the object its contract declares', async () => {
    const client = member();
    const exported = await client.call('audit.export', { workspace_id: workspaceId });
    expectTypeOf(exported.records).toEqualTypeOf<AuditRecord[]>();
    // What the REST route answers, line for line.
    const raw = await fetch(`${kernel.url}/api/v1/workspaces/${workspaceId}/audit`, {
      headers: { authorization: `Bearer ${kernel.workspace.tokens.member}` },
    });
    expect(raw.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await raw.text()).split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    expect(exported.records.map((record) => JSON.stringify(record))).toEqual(lines);
    const page = await client.call('audit.export', { workspace_id: workspaceId, limit: 1 });
    expect(page.records).toHaveLength(1);
  });

  it('encodes path parameters: an id with a slash is a missing run, not another route', async () => {
    const error = await member()
      .call('runs.get', { workspace_id: workspaceId, run_id: 'run/../x' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: 'run_not_found', status: 404 });
  });

  it("surfaces the kernel's refusals as the SDK's typed errors with their stable codes", async () => {
    const forbidden = await createClient({
      url: kernel.url,
      token: kernel.workspace.tokens.executor,
    })
      .call('decisions.list', { workspace_id: workspaceId })
      .catch((caught: unknown) => caught);
    expect(forbidden).toBeInstanceOf(ForbiddenError);
    expect(forbidden).toMatchObject({ code: 'forbidden', status: 403 });

    const invalid = await member()
      .call('retention.put', {
        workspace_id: workspaceId,
        events_days: 0,
        runs_days: null,
        audit_days: null,
      })
      .catch((caught: unknown) => caught);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({ code: 'invalid_input', status: 400 });
    expect((invalid as ValidationError).problems.map((problem) => problem.pointer)).toEqual([
      '/events_days',
    ]);
    const kept = await member().call('retention.get', { workspace_id: workspaceId });
    expect(kept.events_days).toBeNull();
  });

  it('refuses a call it cannot route before sending anything', async () => {
    requests.length = 0;
    const client = member();
    const missing = await client
      .call('runs.get', { workspace_id: workspaceId } as never)
      .catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(ValidationError);
    expect(missing).toMatchObject({ code: 'invalid_input', status: null });
    expect((missing as ValidationError).problems[0]?.pointer).toBe('/run_id');
    const unknown = await client
      .call('runs.delete' as never, { workspace_id: workspaceId } as never)
      .catch((caught: unknown) => caught);
    expect(unknown).toBeInstanceOf(ValidationError);
    const nested = await client
      .call('runs.list', { workspace_id: workspaceId, state: ['running'] as never })
      .catch((caught: unknown) => caught);
    expect((nested as ValidationError).problems[0]?.pointer).toBe('/state');
    expect(requests).toEqual([]);
  });

  it('rejects with ConnectionError naming the kernel when nothing answers', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const error = await createClient({ url, token: 'x' })
      .call('credentials.self', { workspace_id: 'ws' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'connection_failed', status: null });
    expect((error as ConnectionError).detail).toContain(url);
  });
});
