import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KernelApi } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { filesystemServer, memoryServer, workFolder } from './servers.js';
import { CLI, runAirlockCli } from './stdio-gateway.js';

const execFileAsync = promisify(execFile);

/*
 * The two commands as a person (or a desktop MCP client) starts them: the
 * built `airlock` binary, a real filesystem server behind it, over stdio.
 */
describe('airlock executor mcp / airlock gateway mcp', () => {
  let kernel: TestKernel;
  let dir: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    kernel = await startTestKernel();
    dir = workFolder();
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'rules',
      approval_rules: [
        { tool: 'fs__read_*', verdict: 'allow' },
        { tool: 'fs__write_file', verdict: 'ask' },
      ],
    });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await kernel?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const env = () => ({
    ...process.env,
    AIRLOCK_URL: kernel.url,
    AIRLOCK_WORKSPACE: kernel.workspace.id,
    AIRLOCK_EXECUTOR_TOKEN: kernel.workspace.tokens.executor,
  });
  const fsCommand = () => {
    const { spec } = filesystemServer(dir);
    return [spec.command, ...spec.args];
  };
  const workspace = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );

  it('the executor command serves a kernel run and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'executor', 'mcp', '--name', 'fs', '--', ...fsCommand()],
      {
        env: env(),
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    await eventually(() => stderr.includes('serving'), { timeoutMs: 20_000 });
    expect(stderr).toContain('fs__write_file');
    const agent = new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent });
    const conversation = await agent.createConversation();
    const run = await agent.startTurn(conversation.id, {
      input: 'go',
      provider: {
        kind: 'scripted',
        rounds: [
          {
            tool_calls: [{ name: 'fs__write_file', input: { path: 'src/e.txt', content: 'cli' } }],
          },
          { final: 'done', expect: 'Successfully wrote' },
        ],
      },
    });
    const decision = await eventually(async () => (await workspace().decisions.list())[0]);
    if (!decision.isApproval()) throw new Error('expected a parked call');
    await decision.approve();
    await eventually(async () => (await workspace().runs.run(run.id).get()).state === 'completed');
    expect(readFileSync(join(dir, 'src/e.txt'), 'utf8')).toBe('cli');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('the gateway command speaks MCP on stdio to an SDK client, as a desktop client would start it', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'gateway', 'mcp', '--name', 'fs', '--', ...fsCommand()],
      env: { ...(env() as Record<string, string>), AIRLOCK_TOKEN: kernel.workspace.tokens.agent },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'desktop', version: '1.0.0' });
    await client.connect(transport);
    try {
      const read = (await client.callTool({
        name: 'fs__read_text_file',
        arguments: { path: 'src/e.txt' },
      })) as CallToolResult;
      expect(read.content).toEqual([{ type: 'text', text: 'cli' }]);
      let progressed = 0;
      const pending = client.callTool(
        { name: 'fs__write_file', arguments: { path: 'src/f.txt', content: 'stdio' } },
        undefined,
        { onprogress: () => (progressed += 1) },
      );
      const decision = await eventually(async () => (await workspace().decisions.list())[0]);
      await eventually(() => progressed > 0, { timeoutMs: 5000 });
      if (!decision.isApproval()) throw new Error('expected a parked call');
      expect(existsSync(join(dir, 'src/f.txt'))).toBe(false);
      // The operator CLI decides this one, as a person at a terminal would.
      const approved = await execFileAsync(
        process.execPath,
        [CLI, 'decisions', 'approve', decision.task.run_id, decision.task.key],
        { env: { ...env(), AIRLOCK_TOKEN: kernel.workspace.tokens.member } },
      );
      expect(approved.stdout).toContain('approved');
      const written = (await pending) as CallToolResult;
      expect(written.content).toEqual([{ type: 'text', text: 'Successfully wrote to src/f.txt' }]);
      expect(readFileSync(join(dir, 'src/f.txt'), 'utf8')).toBe('stdio');
      expect((await workspace().runs.run(decision.task.run_id).get()).provider).toBe('gateway');
    } finally {
      await client.close();
    }
  });

  it('the executor command reads several servers from a desktop-style config file', async () => {
    const config = join(dir, 'mcp-servers.json');
    const memory = memoryServer(join(dir, 'memory.jsonl'));
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { fs: filesystemServer(dir).spec, memory: memory.spec } }),
    );
    const child = spawn(process.execPath, [CLI, 'executor', 'mcp', '--config', config], {
      env: env(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    await eventually(() => stderr.includes('serving'), { timeoutMs: 20_000 });
    expect(stderr).toMatch(/fs__read_text_file.*memory__read_graph/);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  /** A desktop-style config of the fixture server that declares these tools as they are. */
  const declaredToolsConfig = (name: string, tools: unknown[]) => {
    const config = join(dir, `${name}-servers.json`);
    const fixture = new URL('./fixtures/declared-tools-server.mjs', import.meta.url).pathname;
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          [name]: {
            command: process.execPath,
            args: [fixture],
            env: { TOOLS_JSON: JSON.stringify(tools) },
          },
        },
      }),
    );
    return config;
  };
  const agentEnv = () => ({ ...env(), AIRLOCK_AGENT_TOKEN: kernel.workspace.tokens.agent });

  it("refuses a server's tool name holding control characters, printing it escaped", async () => {
    const agent = new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent });
    const before = await agent.profile();
    const config = declaredToolsConfig('odd', [
      { name: 'paint\u001b[2J\u001b[31mred', inputSchema: { type: 'object' } },
    ]);
    const ended = await runAirlockCli(
      ['executor', 'mcp', '--config', config],
      agentEnv(),
      children,
    );
    // A person would read another name than the one that runs: the kernel refuses it.
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain('tool odd__paint\\x1b[2J\\x1b[31mred');
    expect(ended.stderr).toContain('(tool_name_hidden_character)');
    expect(ended.stderr).not.toContain('\u001b');
    expect(ended.stderr).not.toContain('serving');
    expect(await agent.profile()).toEqual(before);
  });

  it('a refused registration prints every problem the kernel found, and changes nothing', async () => {
    const agent = new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent });
    const before = await agent.profile();
    const config = declaredToolsConfig('bad', [
      { name: 'first', inputSchema: { type: 'object', properties: { a: { type: 'nope' } } } },
      { name: 'second', inputSchema: { type: 'object', properties: { b: { minimum: 'x' } } } },
    ]);
    const ended = await runAirlockCli(
      ['executor', 'mcp', '--config', config],
      agentEnv(),
      children,
    );
    expect(ended.code).toBe(1);
    const lines = ended.stderr.trim().split('\n');
    expect(lines[0]).toMatch(
      /^airlock mcp: the kernel refused: invalid_configuration: the configuration has 2 problem\(s\)/,
    );
    // Each problem's pointer (its index follows the tools earlier tests registered) and its tool.
    expect(lines.slice(1).map((line) => line.split(':').slice(1, 3).join(':').trim())).toEqual([
      expect.stringMatching(/^\/tool_manifest\/\d+\/input_schema: tool bad__first$/),
      expect.stringMatching(/^\/tool_manifest\/\d+\/input_schema: tool bad__second$/),
    ]);
    expect(await agent.profile()).toEqual(before);
  });

  it('the gateway command, refused its registration, prints every problem and serves nothing', async () => {
    const agent = new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent });
    const before = await agent.profile();
    const config = declaredToolsConfig('gwbad', [
      { name: 'ok', inputSchema: { type: 'object' } },
      {
        name: 'bad\u001b[31m',
        inputSchema: { type: 'object', properties: { a: { type: 'nope' } } },
      },
    ]);
    const ended = await runAirlockCli(
      ['gateway', 'mcp', '--stdio', '--config', config],
      { ...agentEnv(), AIRLOCK_TOKEN: kernel.workspace.tokens.agent },
      children,
    );
    expect(ended.code).toBe(1);
    const lines = ended.stderr.trim().split('\n');
    expect(lines[0]).toMatch(
      /^airlock mcp: the kernel refused: invalid_configuration: the configuration has 2 problem\(s\)/,
    );
    // Each problem names its tool, escaped for the terminal, not only its place in the manifest:
    // its schema does not compile, and its name holds a control character.
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^airlock mcp: {3}\/tool_manifest\/\d+\/input_schema: tool gwbad__bad\\x1b\[31m: .+ \(tool_manifest_invalid\)$/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/tool gwbad__bad\\x1b\[31m: .+\(tool_name_hidden_character\)$/),
    );
    expect(ended.stderr).not.toContain('\u001b');
    expect(ended.stderr).not.toContain('serving');
    expect(await agent.profile()).toEqual(before);
  });

  it('the gateway command says when --agent-token registered nothing, the agent having no profile', async () => {
    const fresh = await kernel.addWorkspace('no-profile');
    const ended = await runAirlockCli(
      ['gateway', 'mcp', '--stdio', '--name', 'fs', '--', ...fsCommand()],
      {
        ...env(),
        AIRLOCK_WORKSPACE: fresh.id,
        AIRLOCK_EXECUTOR_TOKEN: fresh.tokens.executor,
        AIRLOCK_AGENT_TOKEN: fresh.tokens.agent,
        AIRLOCK_TOKEN: fresh.tokens.agent,
      },
      children,
    );
    // stdin is empty: the gateway ends at once, having said what it did.
    expect(ended.code).toBe(0);
    expect(ended.stderr).toContain(
      'the agent has no profile yet, so the tools were not registered',
    );
  });

  it('the gateway command serves Streamable HTTP with each client credential', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'gateway', 'mcp', '--http', '--port', '0', '--name', 'fs', '--', ...fsCommand()],
      { env: env(), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const url = await eventually(() => /tools at (http:\S+)/.exec(stderr)?.[1], {
      timeoutMs: 20_000,
    });
    const client = new Client({ name: 'http-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${kernel.workspace.tokens.agent}` } },
      }),
    );
    const listed = (await client.callTool({
      name: 'fs__list_allowed_directories',
      arguments: {},
    })) as CallToolResult;
    // The profile's rules allow reads only: under `rules`, anything unmatched is refused.
    expect(listed).toMatchObject({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'Airlock refused this call: no approval rule allows fs__list_allowed_directories',
        },
      ],
    });
    await client.close();
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});
