import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from './cli.js';

/** Runs the CLI in a fresh HOME; answers the exit code and what it printed. */
async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  try {
    return { code: await main(argv), out, err };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}

let home = '';
const saved = { HOME: process.env.HOME, CODEX_HOME: process.env.CODEX_HOME };
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'airlock-hooks-cli-'));
  process.env.HOME = home;
  process.env.CODEX_HOME = join(home, '.codex');
});
afterEach(() => {
  process.env.HOME = saved.HOME;
  if (saved.CODEX_HOME === undefined) delete process.env.CODEX_HOME;
  else process.env.CODEX_HOME = saved.CODEX_HOME;
});

const kernel = ['--url', 'http://127.0.0.1:9', '--token', 'alk_agent_x'];

describe('airlock hooks install: --wait-ms', () => {
  it.each(['0', '999', '110000', '200000'])(
    'refuses --wait-ms %s (the hook must answer before the agent gives up on it) and writes nothing',
    async (wait) => {
      const result = await run(['install', 'codex', '--user', ...kernel, '--wait-ms', wait]);
      expect(result.code).toBe(2);
      expect(result.err).toContain(
        '--wait-ms must be a whole number of milliseconds from 1000 to 109999',
      );
      expect(existsSync(join(home, '.codex'))).toBe(false);
      expect(existsSync(join(home, '.airlock'))).toBe(false);
    },
  );

  it.each(['1000', '109999'])('accepts --wait-ms %s', async (wait) => {
    const result = await run(['install', 'gemini', '--user', ...kernel, '--wait-ms', wait]);
    expect(result).toMatchObject({ code: 0, err: '' });
  });
});

describe('airlock hooks: mistakes on the command line are refused (exit 2), nothing written', () => {
  it.each([
    [['install', 'claude-code', '--projet', '/tmp', ...kernel], 'unknown option --projet'],
    [['uninstall', 'claude-code', '--frobnicate'], 'unknown option --frobnicate'],
    [['doctor', '--jsn'], 'unknown option --jsn'],
    [['install', 'codex', '--user', '--http', ...kernel], '--http is for claude-code only'],
    [['install', 'gemini', '--defer', ...kernel], '--defer is for claude-code only'],
    [['install', 'claude-code', '--http', '--client', 'sh', ...kernel], 'drop --client or --http'],
    [['install', 'gemini', '--user', '--project', ...kernel], 'give --user or --project, not both'],
    [['install', 'codex', ...kernel, '--token-file', '/x'], 'give --token or --token-file'],
    [['install', 'codex', ...kernel, '--url', 'http://other'], '--url is given twice'],
    [['install', 'codex', 'gemini', ...kernel], 'unexpected argument gemini'],
    [['frobnicate'], 'unknown command frobnicate'],
    [
      ['install', 'codex', '--url', 'localhost:4820', '--token', 'alk_agent_x'],
      "--url wants the kernel's base URL with http:// or https://",
    ],
    [
      ['install', 'gemini', '--url', 'ftp://kernel', '--token', 'alk_agent_x'],
      'not "ftp://kernel"',
    ],
  ])('%j', async (argv, message) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
    expect(result.err).toContain('Usage:');
    expect(existsSync(join(home, '.claude'))).toBe(false);
    expect(existsSync(join(home, '.codex'))).toBe(false);
    expect(existsSync(join(home, '.gemini'))).toBe(false);
    expect(existsSync(join(home, '.airlock'))).toBe(false);
  });

  it.each(['install', 'uninstall', 'doctor'])(
    '%s --project with a folder that does not exist: refused, not created',
    async (verb) => {
      const missing = join(home, 'no', 'such', 'dir');
      const result = await run([
        verb,
        'claude-code',
        '--project',
        missing,
        ...(verb === 'install' ? kernel : []),
      ]);
      expect(result.code).toBe(2);
      expect(result.err).toContain(`--project ${missing}: no such directory`);
      expect(existsSync(join(home, 'no'))).toBe(false);
    },
  );

  it('--project DIR installs into the project', async () => {
    const project = join(home, 'repo');
    mkdirSync(project);
    const result = await run(['install', 'claude-code', '--project', project, ...kernel]);
    expect(result.code).toBe(0);
    expect(existsSync(join(project, '.claude', 'settings.json'))).toBe(true);
    expect(existsSync(join(home, '.claude'))).toBe(false);
  });
});

describe('airlock hooks install: a second kernel or credential', () => {
  it('says that the shared configuration now points elsewhere', async () => {
    expect((await run(['install', 'claude-code', '--user', ...kernel])).err).toBe('');
    const again = await run(['install', 'claude-code', '--user', ...kernel]);
    expect(again).toMatchObject({ code: 0, err: '' });
    const other = await run([
      'install',
      'gemini',
      '--user',
      '--url',
      'http://127.0.0.1:4200',
      '--token',
      'alk_agent_B',
    ]);
    expect(other.code).toBe(0);
    expect(other.err).toContain(
      'note: ' +
        join(home, '.airlock', 'hooks.json') +
        ' changed (the kernel http://127.0.0.1:9 → http://127.0.0.1:4200 and the credential)',
    );
  });
});

describe('airlock hooks install: a kernel URL with a password', () => {
  it('is not repeated in the note that the configuration now points elsewhere', async () => {
    expect((await run(['install', 'claude-code', '--user', ...kernel])).code).toBe(0);
    const url = 'https://ci:hunter2@kernel.example:4820';
    const other = await run([
      'install',
      'gemini',
      '--user',
      '--url',
      url,
      '--token',
      'alk_agent_x',
    ]);
    expect(other.code).toBe(0);
    expect(other.err).toContain('(the kernel http://127.0.0.1:9 → https://…@kernel.example:4820)');
    expect(other.err).not.toContain('hunter2');
  });
});

describe('airlock hooks: a token given in place of a word is never repeated', () => {
  const token = 'alk_agent_0Fq3nB8xVt2yKpR7wLcD9eHsJ4uMaZ6gXiN1oQ5rTbY';
  it.each([
    [[token], 'airlock hooks: unknown command (not repeated here: it may be a secret)'],
    [['install', token, ...kernel], 'name an agent: claude-code, codex, gemini (not repeated'],
    [['install', 'codex', `--token=${token}`], 'unknown option (not repeated here'],
    [['uninstall', 'codex', token], 'unexpected argument (not repeated here'],
    [['doctor', token], 'name an agent: claude-code, codex, gemini (not repeated'],
  ])('%#: %s', async (argv, message) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
    expect(result.err).not.toContain('alk_');
    expect(result.err).not.toContain(token.slice(10));
    expect(existsSync(join(home, '.airlock'))).toBe(false);
  });

  it('names a short mistyped verb once, its control characters escaped', async () => {
    const result = await run(['instal\u001b[2J']);
    expect(result.code).toBe(2);
    expect(result.err.split('\n')[0]).toBe('airlock hooks: unknown command instal\\x1b[2J');
  });
});
