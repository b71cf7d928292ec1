import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalRule, ScriptedRound } from '@airlock/core';
import { type ExecutorBridge, KernelApi, startExecutorBridge } from '@airlock/mcp';
import { createClient, type TaskView } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { filesystemServer, memoryServer, slowServer, workFolder } from './servers.js';

/*
 * The executor bridge against the real published MCP servers, started over
 * stdio: model rows of kernel runs (the scripted provider) cross the
 * approval stage, and the granted ones run on the MCP server.
 */
describe('executor bridge: real MCP servers behind the approval stage', () => {
  let kernel: TestKernel;
  let bridge: ExecutorBridge;
  let dir: string;
  const rules: ApprovalRule[] = [
    { tool: 'fs__read_*|fs__list_*|memory__read_graph', verdict: 'allow' },
    { tool: 'memory__create_entities', verdict: 'allow' },
    { tool: 'fs__write_file|fs__edit_file', verdict: 'ask' },
  ];

  beforeAll(async () => {
    kernel = await startTestKernel();
    dir = workFolder();
    const agent = new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent });
    await agent.putProfile({ approval_mode: 'rules', approval_rules: rules, tool_names: ['ask'] });
    bridge = await startExecutorBridge({
      url: kernel.url,
      executorToken: kernel.workspace.tokens.executor,
      agentToken: kernel.workspace.tokens.agent,
      servers: [filesystemServer(dir), memoryServer(join(dir, 'memory.jsonl'))],
      leaseMs: 2000,
    });
  });
  afterAll(async () => {
    await bridge?.close();
    await kernel?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const workspace = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );

  async function turn(rounds: ScriptedRound[]) {
    const agent = new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent });
    const conversation = await agent.createConversation();
    return agent.startTurn(conversation.id, {
      input: 'go',
      provider: { kind: 'scripted', rounds },
    });
  }

  async function settled(runId: string) {
    return eventually(async () => {
      const run = await workspace().runs.run(runId).get();
      return run.state !== 'running' && run;
    });
  }

  it('registers every tool, prefixed, with manifest entries from the annotations', async () => {
    expect(bridge.tools.get('fs__write_file')?.entry).toMatchObject({
      risk_traits: ['write', 'delete', 'destructive'],
      targets: [{ pointer: '/path', kind: 'path' }],
      execution: 'sequential',
    });
    expect(bridge.tools.get('fs__read_text_file')?.entry.risk_traits).toEqual(['read']);
    expect(bridge.tools.has('memory__create_entities')).toBe(true);
    const agent = new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent });
    const names = (await agent.profile())?.tool_names as string[];
    expect(names[0]).toBe('ask');
    expect(names).toEqual(expect.arrayContaining(['fs__write_file', 'memory__read_graph']));
    expect(names).toHaveLength(1 + bridge.tools.size);
    expect(bridge.registeredVersion).toBe(2);
  });

  it('a write parks, a person approves, the file exists and the model reads the result', async () => {
    const run = await turn([
      { tool_calls: [{ name: 'fs__write_file', input: { path: 'src/a.txt', content: 'hello' } }] },
      { final: 'written', expect: 'Successfully wrote to src/a.txt' },
    ]);
    const [parked] = await eventually(async () => {
      const list = await workspace().decisions.list();
      return list.length > 0 && list;
    });
    expect(parked?.isApproval() && parked.tool_name).toBe('fs__write_file');
    expect(existsSync(join(dir, 'src/a.txt'))).toBe(false);
    if (!parked?.isApproval()) throw new Error('expected a parked call');
    await parked.approve();
    const done = await settled(run.id);
    expect(done).toMatchObject({ state: 'completed', final_answer: 'written' });
    expect(readFileSync(join(dir, 'src/a.txt'), 'utf8')).toBe('hello');
    const [task] = await workspace().runs.run(run.id).tasks();
    expect(task?.result).toMatchObject({
      content: [{ type: 'text', text: 'Successfully wrote to src/a.txt' }],
    });
  });

  it('a read allowed by a rule is granted without a park', async () => {
    const run = await turn([
      { tool_calls: [{ name: 'fs__read_text_file', input: { path: 'src/a.txt' } }] },
      { final: 'read', expect: 'hello' },
    ]);
    expect((await settled(run.id)).state).toBe('completed');
    const events = await workspace().runs.run(run.id).events();
    expect(events.map((e) => e.type)).not.toContain('task.parked');
    expect(events.map((e) => e.type)).toContain('task.granted');
  });

  it('a denied write leaves no file; the model reads the refusal', async () => {
    const run = await turn([
      { tool_calls: [{ name: 'fs__write_file', input: { path: 'src/b.txt', content: 'no' } }] },
      { final: 'refused', expect: 'not in this repo' },
    ]);
    const parked = await eventually(async () => (await workspace().decisions.list())[0]);
    if (!parked.isApproval()) throw new Error('expected a parked call');
    await parked.deny({ reason: 'not in this repo' });
    expect((await settled(run.id)).state).toBe('completed');
    expect(existsSync(join(dir, 'src/b.txt'))).toBe(false);
  });

  it("a result the server marks isError fails the row with the server's text", async () => {
    const run = await turn([
      { tool_calls: [{ name: 'fs__read_text_file', input: { path: 'src/missing.txt' } }] },
      { final: 'missing', expect: ['tool_error', 'ENOENT'] },
    ]);
    expect((await settled(run.id)).state).toBe('completed');
    const [task] = await workspace().runs.run(run.id).tasks();
    expect(task).toMatchObject({ state: 'failed', error: { code: 'tool_error' } });
  });

  it('serves a second real server (memory) with structured content', async () => {
    const run = await turn([
      {
        tool_calls: [
          {
            name: 'memory__create_entities',
            input: { entities: [{ name: 'Ada', entityType: 'person', observations: ['math'] }] },
          },
        ],
      },
      { tool_calls: [{ name: 'memory__read_graph' }] },
      { final: 'remembered', expect: 'Ada' },
    ]);
    expect((await settled(run.id)).state).toBe('completed');
    const tasks = await workspace().runs.run(run.id).tasks();
    expect(tasks[1]?.result).toMatchObject({
      structuredContent: { entities: [{ name: 'Ada', entityType: 'person' }] },
    });
  });

  it('survives a restart of the MCP server: the next call starts it again', async () => {
    const fs = bridge.connections.get('fs');
    const before = fs?.starts ?? 0;
    const pid = fs?.pid;
    expect(pid).toBeTypeOf('number');
    process.kill(pid as number, 'SIGKILL');
    await eventually(() => fs?.pid === null);
    const run = await turn([
      { tool_calls: [{ name: 'fs__list_directory', input: { path: 'src' } }] },
      { final: 'listed', expect: 'a.txt' },
    ]);
    expect((await settled(run.id)).state).toBe('completed');
    expect(fs?.starts).toBe(before + 1);
  });

  it('a call of a read-only tool cut off by the server exiting is sent again to a fresh process', async () => {
    const slow = await startExecutorBridge({
      url: kernel.url,
      executorToken: kernel.workspace.tokens.executor,
      servers: [slowServer()],
      leaseMs: 2000,
    });
    try {
      const member = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
      const run = await member.workspace(kernel.workspace.id).runs.create({
        approval_mode: 'bypass',
        provider: {
          kind: 'scripted',
          rounds: [
            { tool_calls: [{ name: 'slow__wait', input: { ms: 1500 } }] },
            { final: 'waited', expect: 'done by' },
          ],
        },
      });
      const connection = slow.connections.get('slow');
      const first = connection?.pid;
      await eventually(async () => {
        const [task] = await workspace().runs.run(run.id).tasks();
        return task?.state === 'claimed';
      });
      // Give the call time to reach the server, then stop the server under it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(first as number, 'SIGKILL');
      expect((await settled(run.id)).state).toBe('completed');
      const [task] = await workspace().runs.run(run.id).tasks();
      expect(task).toMatchObject({ state: 'succeeded', attempts: 1 });
      expect(JSON.stringify(task?.result)).toContain(`done by ${connection?.pid}`);
      expect(connection?.pid).not.toBe(first);
      expect(connection?.starts).toBe(2);
    } finally {
      await slow.close();
    }
  });

  it('does not run an edit again once the lease of an executor that died lapses: it fails outcome_unknown', async () => {
    // edit_file is declared neither read-only nor idempotent (write_file is idempotent: run again).
    writeFileSync(join(dir, 'src/e.txt'), 'before\n');
    const run = await turn([
      {
        tool_calls: [
          {
            name: 'fs__edit_file',
            input: { path: 'src/e.txt', edits: [{ oldText: 'before', newText: 'after' }] },
          },
        ],
      },
      { final: 'ok' },
    ]);
    const parked = await eventually(async () => (await workspace().decisions.list())[0]);
    // A second executor grabs the row as soon as it is approved, then dies without committing:
    // the kernel cannot tell whether it wrote, so the write is not run again on this approval.
    const ghost = await fetch(`${kernel.url}/executor_api/v1/runs/${run.id}/tasks/t1/claim`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${kernel.workspace.tokens.executor}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ lease_ms: 1000 }),
    });
    expect(ghost.status).toBe(409);
    if (!parked.isApproval()) throw new Error('expected a parked call');
    await bridge.close();
    await parked.approve();
    const claimed = await fetch(`${kernel.url}/executor_api/v1/claim`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${kernel.workspace.tokens.executor}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ tool_names: ['fs__edit_file'], lease_ms: 1000 }),
    });
    expect(((await claimed.json()) as { claim: { task: TaskView } }).claim.task.key).toBe('t1');
    bridge = await startExecutorBridge({
      url: kernel.url,
      executorToken: kernel.workspace.tokens.executor,
      servers: [filesystemServer(dir)],
      leaseMs: 2000,
    });
    expect((await settled(run.id)).state).toBe('completed');
    const [task] = await workspace().runs.run(run.id).tasks();
    expect(task).toMatchObject({
      state: 'failed',
      attempts: 1,
      error: { code: 'outcome_unknown' },
    });
    expect(readFileSync(join(dir, 'src/e.txt'), 'utf8')).toBe('before\n');
  });

  it('under a read_only rule set (spec 003) the registered manifest grants reads and refuses writes as data', async () => {
    const agent = new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent });
    const before = (await agent.profile()) as Record<string, unknown>;
    expect(Array.isArray(before.tool_manifest)).toBe(true);
    const { approval_rules: _rules, ...withoutRules } = before;
    await agent.putProfile({
      ...withoutRules,
      approval_mode: 'bypass',
      permission_rule_set: 'read_only',
      project_root: dir,
    });
    try {
      const run = await turn([
        {
          tool_calls: [
            { name: 'fs__read_text_file', input: { path: 'src/a.txt' } },
            { name: 'fs__write_file', input: { path: 'src/d.txt', content: 'no' } },
          ],
        },
        { final: 'done', expect: 'hello' },
      ]);
      expect((await settled(run.id)).state).toBe('completed');
      const [read, write] = await workspace().runs.run(run.id).tasks();
      expect(read).toMatchObject({ state: 'succeeded' });
      expect(write).toMatchObject({ state: 'failed', error: { code: 'approval_denied' } });
      expect((write?.decision as { layer?: string } | undefined)?.layer).toBe('rule_set');
      expect(existsSync(join(dir, 'src/d.txt'))).toBe(false);
    } finally {
      await agent.putProfile(before);
    }
  });
});
