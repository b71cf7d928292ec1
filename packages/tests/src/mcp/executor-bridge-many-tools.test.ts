import { fileURLToPath } from 'node:url';
import { EXECUTOR_TOOLS_MAX, type ExecutorBridge, startExecutorBridge } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';

const declaredTools = fileURLToPath(
  new URL('./fixtures/declared-tools-server.mjs', import.meta.url),
);

/*
 * The kernel's claim names at most 256 tools. A bridge whose servers declare
 * more (one large server, or several servers together) still serves every
 * one of them: it claimed nothing at all when its one claim named them all.
 */
describe('executor bridge: more tools than one claim may name', () => {
  let kernel: TestKernel;
  let bridge: ExecutorBridge;
  const errors: string[] = [];
  const count = EXECUTOR_TOOLS_MAX + 44;

  beforeAll(async () => {
    kernel = await startTestKernel();
    const tools = Array.from({ length: count }, (_, i) => ({
      name: `t${i}`,
      inputSchema: { type: 'object' },
    }));
    bridge = await startExecutorBridge({
      url: kernel.url,
      executorToken: kernel.workspace.tokens.executor,
      servers: [
        {
          name: 'many',
          spec: {
            command: process.execPath,
            args: [declaredTools],
            env: { TOOLS_JSON: JSON.stringify(tools) },
          },
        },
      ],
      onError: (error) => errors.push(error.message),
    });
  });
  afterAll(async () => {
    await bridge?.close();
    await kernel?.close();
  });

  it('runs a granted call of the first tool and of the last', async () => {
    expect(bridge.tools.size).toBe(count);
    const workspace = createClient({
      url: kernel.url,
      token: kernel.workspace.tokens.member,
    }).workspace(kernel.workspace.id);
    const run = await workspace.runs.create({
      approval_mode: 'bypass',
      provider: {
        kind: 'scripted',
        rounds: [
          {
            tool_calls: [
              { name: 'many__t0', input: {} },
              { name: `many__t${count - 1}`, input: {} },
            ],
          },
          { final: 'done' },
        ],
      },
    });
    const settled = await eventually(async () => {
      const view = await workspace.runs.run(run.id).get();
      return view.state !== 'running' && view;
    });
    expect(settled.state).toBe('completed');
    const tasks = await workspace.runs.run(run.id).tasks();
    expect(tasks.map((task) => task.state)).toEqual(['succeeded', 'succeeded']);
    expect(errors).toEqual([]);
  });

  it('take() claims nothing of a tool it does not serve: the row waits for its executor', async () => {
    const workspace = createClient({
      url: kernel.url,
      token: kernel.workspace.tokens.member,
    }).workspace(kernel.workspace.id);
    const run = await workspace.runs.create({
      approval_mode: 'bypass',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'elsewhere__tool', input: {} }] }, { final: 'done' }],
      },
    });
    const [row] = await eventually(async () => {
      const tasks = await workspace.runs.run(run.id).tasks();
      return tasks[0]?.state === 'runnable' && tasks;
    });
    expect(await bridge.take(run.id, row?.key ?? '', { toolName: 'elsewhere__tool' })).toBeNull();
    expect((await workspace.runs.run(run.id).task(row?.key ?? '')).state).toBe('runnable');
  });

  it("take() without the row's tool runs a row of its last tool on its one executor", async () => {
    const workspace = createClient({
      url: kernel.url,
      token: kernel.workspace.tokens.member,
    }).workspace(kernel.workspace.id);
    const run = await workspace.runs.create({
      approval_mode: 'bypass',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: `many__t${count - 1}`, input: {} }] }, { final: 'done' }],
      },
    });
    const leave = bridge.leaveRun(run.id);
    try {
      const [row] = await eventually(async () => {
        const tasks = await workspace.runs.run(run.id).tasks();
        return tasks[0] && tasks;
      });
      // The executor's own poll may claim it first: either way it ran here, never refused.
      const taken = await bridge.take(run.id, row?.key ?? '');
      expect(taken === null || taken.state === 'succeeded').toBe(true);
      const settled = await eventually(async () => {
        const task = await workspace.runs.run(run.id).task(row?.key ?? '');
        return task.state === 'succeeded' && task;
      });
      expect(settled.state).toBe('succeeded');
    } finally {
      leave();
    }
  });
});
