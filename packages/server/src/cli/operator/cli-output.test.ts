import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../../testing/cli-entry.js';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import {
  operatorCliEnv,
  plantCalls,
  runOperatorCli,
  sqliteBackend,
} from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();

/** A command far over a pipe's 64 KiB buffer. */
const LONG_COMMAND = `echo ${'x'.repeat(300_000)}`;

describe('what the CLI prints reaches a pipe whole', { timeout: 180_000 }, () => {
  let d: Deployment;
  let runId: string;

  beforeAll(async () => {
    d = await deploy(sqlite);
    runId = await plantCalls(d, [{ name: 'bash', input: { command: LONG_COMMAND }, id: 'c1' }]);
  });

  afterAll(async () => {
    await d?.close();
  });

  it('says in text why a run failed, as --json does', async () => {
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'x',
      provider: { kind: 'scripted', rounds: [{ final: 'done', expect: 'a word never fed' }] },
    });
    expect(created.status).toBe(201);
    const failed = await waitFor(async () => {
      const run = (await d.member.get(`${d.ws}/runs/${created.body.id}`)).body;
      return run.state === 'failed' ? run : null;
    });
    const shown = await runOperatorCli(d, ['runs', 'show', created.body.id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`  error: ${failed.error.code}: `);
    expect(failed.error.code).toBe('script_expectation_failed');
  });

  it('prints a run of 300 KB as complete JSON into a pipe', async () => {
    const shown = await runOperatorCli(d, ['runs', 'show', runId, '--json']);
    expect(shown.code).toBe(0);
    expect(shown.stdout.length).toBeGreaterThan(300_000);
    const parsed = JSON.parse(shown.stdout) as { tasks: { tool_input: { command: string } }[] };
    expect(parsed.tasks[0]?.tool_input.command).toBe(LONG_COMMAND);
  });

  it('ends quietly when the reader goes away after the first bytes', async () => {
    const child = spawn(process.execPath, [...CLI_NODE_ARGS, 'runs', 'show', runId, '--json'], {
      env: operatorCliEnv(d),
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Like `| head -c 100`: read once, then close the pipe.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  /** Runs the built CLI with its stdout written into `device`; answers its exit code and stderr. */
  const intoDevice = async (device: string, args: string[]) => {
    const fd = openSync(device, 'w');
    const child = spawn(process.execPath, [...CLI_NODE_ARGS, ...args], {
      env: operatorCliEnv(d),
      stdio: ['ignore', fd, 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    closeSync(fd);
    return { code, stderr };
  };

  it('fails, saying so once, when the output cannot be written (a full disk)', async () => {
    // A list, and an export that waits for its output to drain (it failed on the write itself).
    for (const args of [
      ['runs', 'list'],
      ['audit', 'export'],
    ]) {
      expect({ args, ...(await intoDevice('/dev/full', args)) }).toEqual({
        args,
        code: 1,
        stderr: 'airlock: could not write the output: ENOSPC\n',
      });
    }
  });

  it('succeeds into /dev/null, where the output was sent away on purpose', async () => {
    expect(await intoDevice('/dev/null', ['runs', 'list'])).toEqual({ code: 0, stderr: '' });
  });
});
