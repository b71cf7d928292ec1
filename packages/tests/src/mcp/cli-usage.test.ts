import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import { filesystemServer, workFolder } from './servers.js';
import { runAirlockCli } from './stdio-gateway.js';

/*
 * `airlock executor mcp` and `airlock gateway mcp` refuse a command line they
 * cannot run as a usage error: exit 2 and one line on stderr, before serving.
 */
describe('airlock executor mcp / airlock gateway mcp: usage errors', () => {
  let kernel: TestKernel;
  let dir: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    kernel = await startTestKernel();
    dir = workFolder();
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

  /** Runs the command to its end: its exit code and its stderr. */
  const exitOf = (args: string[], overrides: Record<string, string> = {}) =>
    runAirlockCli(args, { ...env(), ...overrides }, children);

  /** Expects a usage error: exit 2 and one line on stderr saying `message`. */
  const expectUsageError = (ended: { code: number | null; stderr: string }, message: string) => {
    expect(ended.code).toBe(2);
    expect(ended.stderr.trim().split('\n')).toHaveLength(1);
    expect(ended.stderr).toContain(message);
  };

  it('refuses a --rules file that holds no object as a usage error (exit 2)', async () => {
    const rules = join(dir, 'null-rules.json');
    writeFileSync(rules, 'null');
    const ended = await exitOf([
      'gateway',
      'mcp',
      '--rules',
      rules,
      '--token',
      'alk_member_x',
      '--name',
      'fs',
      '--',
      'x',
    ]);
    expectUsageError(ended, 'the rules file must hold an object');
  });

  it('refuses a kernel URL that is not http(s) as a usage error naming --url or AIRLOCK_URL (exit 2)', async () => {
    // A real server behind it, so only the URL is wrong.
    const server = ['--name', 'fs', '--', ...fsCommand()];
    const flag = await exitOf(['executor', 'mcp', '--url', 'localhost:4820', ...server]);
    expectUsageError(
      flag,
      `--url wants the kernel's base URL with http:// or https://, such as http://127.0.0.1:4820, not "localhost:4820" (http://localhost:4820?)`,
    );
    const variable = await exitOf(['gateway', 'mcp', '--token', 'alk_member_x', ...server], {
      AIRLOCK_URL: 'ftp://admin:s3cret@127.0.0.1:4820',
    });
    expectUsageError(variable, `AIRLOCK_URL wants the kernel's base URL with http:// or https://`);
    expect(variable.stderr).toContain('not "ftp://…@127.0.0.1:4820"');
    expect(variable.stderr).not.toContain('s3cret');
    expect(flag.stderr + variable.stderr).not.toContain('the kernel refused');
  });

  // One CLI start per case: each is a process start (seven seconds on a loaded 2-core machine),
  // and five in one test went past its 30 s on a fresh-clone run beside other jobs.
  const usageServer = ['--name', 'fs', '--', 'x'];
  it.each([
    {
      refused: '--port without --http',
      args: ['gateway', 'mcp', '--token', 'alk_member_x', '--port', '5000', ...usageServer],
      message: '--port: read only with --http',
    },
    {
      refused: '--token with --http',
      args: ['gateway', 'mcp', '--http', '--token', 'alk_member_x', ...usageServer],
      message: "--token is the --stdio client's credential",
    },
    {
      refused: 'a port that is not digits',
      args: ['gateway', 'mcp', '--http', '--port', '', ...usageServer],
      message: '--port must be a port number, not ',
    },
    {
      refused: '--config beside --name',
      args: ['executor', 'mcp', '--config', 'servers.json', '--name', 'fs'],
      message: 'give --config FILE or --name NAME -- command [args...], not both',
    },
  ])('refuses $refused as a usage error (exit 2)', async ({ args, message }) => {
    expectUsageError(await exitOf(args), message);
  });

  it("refuses --rules beside an agent's credential, which sets no run (exit 2)", async () => {
    const rules = join(dir, 'agent-rules.json');
    writeFileSync(rules, JSON.stringify({ approval_mode: 'ask' }));
    const agentRules = await exitOf(['gateway', 'mcp', '--rules', rules, ...usageServer], {
      AIRLOCK_TOKEN: 'alk_agent_x',
    });
    expectUsageError(agentRules, "--rules sets the runs of a member's credential");
  });

  it('refuses a bad command line with a one-line message and exit code 2', async () => {
    const ended = await exitOf(['gateway', 'mcp', '--name', 'a__b', '--', 'x']);
    expectUsageError(ended, 'invalid server name "a__b"');
  });
});
