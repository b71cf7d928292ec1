import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ExecutorBridge, startExecutorBridge } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';

const outputSchemaServer = fileURLToPath(
  new URL('./fixtures/output-schema-server.mjs', import.meta.url),
);

/*
 * What the tool answered is what its row records. The MCP SDK's callTool
 * checks a result's structuredContent against the tool's outputSchema once
 * the tool has run, and throws "-32602 Structured content does not match":
 * the row failed as if its input were wrong, the result was lost, and a
 * model told so would run the tool again.
 */
describe('executor bridge: a result that does not match its outputSchema', () => {
  let kernel: TestKernel;
  let bridge: ExecutorBridge;
  const dir = mkdtempSync(join(tmpdir(), 'airlock-mcp-results-'));
  const countFile = join(dir, 'calls');

  beforeAll(async () => {
    kernel = await startTestKernel();
    bridge = await startExecutorBridge({
      url: kernel.url,
      executorToken: kernel.workspace.tokens.executor,
      servers: [
        {
          name: 'output',
          spec: {
            command: process.execPath,
            args: [outputSchemaServer],
            env: { COUNT_FILE: countFile },
          },
        },
      ],
    });
  });
  afterAll(async () => {
    await bridge?.close();
    await kernel?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits the result the tool answered, which ran once', async () => {
    const workspace = createClient({
      url: kernel.url,
      token: kernel.workspace.tokens.member,
    }).workspace(kernel.workspace.id);
    const run = await workspace.runs.create({
      approval_mode: 'bypass',
      provider: {
        kind: 'scripted',
        rounds: [
          { tool_calls: [{ name: 'output__count', input: {} }] },
          { final: 'done', expect: 'counted three' },
        ],
      },
    });
    const settled = await eventually(async () => {
      const view = await workspace.runs.run(run.id).get();
      return view.state !== 'running' && view;
    });
    expect(settled.state).toBe('completed');
    const [task] = await workspace.runs.run(run.id).tasks();
    expect(task).toMatchObject({
      state: 'succeeded',
      result: {
        content: [{ type: 'text', text: 'counted three' }],
        structuredContent: { n: 'three' },
      },
    });
    expect(readFileSync(countFile, 'utf8').trim().split('\n')).toHaveLength(1);
  });
});
