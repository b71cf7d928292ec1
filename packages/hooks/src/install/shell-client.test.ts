import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installHooks } from './install.js';
import { shellHookPath } from './shell-client.js';
import { freshHome, runInstalled } from './test-home.js';

const sandbox = () => freshHome('sh');

/** A loopback server standing for the kernel's hook endpoint: records what it got, answers `reply`. */
let reply: { status: number; body: string } = { status: 200, body: '{}' };
const received: { url: string; authorization: string; body: string }[] = [];
const server = createServer((request, response) => {
  let body = '';
  // Decoded across chunks: a long payload's characters may straddle two of them.
  request.setEncoding('utf8');
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    received.push({
      url: request.url ?? '',
      authorization: request.headers.authorization ?? '',
      body,
    });
    // As the kernel does (sendJson): the answer's length is always declared.
    response.writeHead(reply.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(reply.body),
    });
    response.end(reply.body);
  });
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe.each(['sh', 'bash'] as const)('the shell hook client (install --client %s)', (client) => {
  /** Installs the client for `agent` in a fresh home against the stand-in kernel: the command to run. */
  const installedCommand = (agent: 'claude-code' | 'codex' | 'gemini', token: string) =>
    installHooks({ agent, scope: { kind: 'user' }, env: sandbox().env, url, token, client })
      .command;

  it('writes a private curl config and a command that carries no credential', () => {
    const { home, env } = sandbox();
    const result = installHooks({
      agent: 'gemini',
      scope: { kind: 'user' },
      env,
      url: `${url}/`,
      token: 'alk_agent_"quoted"\\x',
      waitMs: 5000,
      client,
    });
    const config = join(home, '.airlock', 'hooks-gemini.curl');
    expect(statSync(config).mode & 0o777).toBe(0o600);
    const text = readFileSync(config, 'utf8');
    expect(text).toContain(`url = "${url}/agent_api/v1/hooks/gemini/wait-5000"`);
    // Quotes and backslashes are escaped as curl's config syntax wants.
    expect(text).toContain('header = "authorization: Bearer alk_agent_\\"quoted\\"\\\\x"');
    // Ten seconds under the agent's 120 s hook timeout, as every client answers.
    expect(text).toContain('max-time = 110\n');
    expect(result.command).toBe(`${client} ${shellHookPath(client)} ${config}`);
    expect(result.command).not.toContain('alk_agent');
    // Every entry runs the shell client but the turn's end, which runs the Node.js client (it
    // reads the transcript for calls no hook saw) with the same configuration file.
    const settings = JSON.parse(readFileSync(result.settingsPath, 'utf8'));
    const commands = Object.fromEntries(
      Object.entries(settings.hooks).map(([event, groups]) => [
        event,
        (groups as { hooks: { command: string }[] }[])[0]!.hooks[0]!.command,
      ]),
    );
    for (const [event, command] of Object.entries(commands)) {
      // The pre-tool entry ends `|| exit 2`: a client that cannot start still refuses the call.
      const expected =
        event === 'AfterAgent'
          ? result.turnEndCommand
          : event === 'BeforeTool'
            ? `${result.command} || exit 2`
            : result.command;
      expect(command, event).toBe(expected);
    }
    expect(result.turnEndCommand).toMatch(
      /airlock-hook\.js'? gemini --config \S+hooks\.json --wait-ms 5000$/,
    );
    expect(result.turnEndCommand).not.toContain('alk_agent');
    expect(existsSync(shellHookPath(client))).toBe(true);
    execFileSync(client, ['-n', shellHookPath(client)]);
  });

  it("posts the payload with the credential and prints the kernel's answer", async () => {
    const command = installedCommand('codex', 'alk_agent_sh');
    reply = { status: 200, body: '{"decision":"block","reason":"no"}' };
    received.length = 0;
    const payload = JSON.stringify({ session_id: 's1', hook_event_name: 'PreToolUse' });
    const run = await runInstalled(command, payload);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(reply.body);
    expect(received).toEqual([
      {
        url: '/agent_api/v1/hooks/codex/default',
        authorization: 'Bearer alk_agent_sh',
        body: payload,
      },
    ]);
  });

  it('sends a credential with quotes and backslashes and a payload beyond ASCII whole', async () => {
    const command = installedCommand('gemini', 'alk_agent_"quoted"\\x');
    reply = { status: 200, body: '{"decision":"allow"}' };
    received.length = 0;
    const payload = JSON.stringify({
      session_id: 's2',
      hook_event_name: 'BeforeTool',
      tool_input: { command: "echo 'héllo wörld' 🚀 && printf '%s\\n' \"$HOME\"" },
    });
    const run = await runInstalled(command, payload);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`${reply.body}\n`);
    expect(received).toEqual([
      {
        url: '/agent_api/v1/hooks/gemini/default',
        authorization: 'Bearer alk_agent_"quoted"\\x',
        body: payload,
      },
    ]);
  });

  it("sends a tool's long output whole and prints a long answer whole", async () => {
    const command = installedCommand('claude-code', 'alk_agent_long');
    // A PostToolUse of a command that printed 1 MiB, lines of text beyond ASCII among them.
    const line = 'ok 🚀 wörld \\ "quoted" %s %d\n';
    const stdout = line.repeat(Math.ceil((1 << 20) / line.length));
    const payload = JSON.stringify({
      session_id: 's3',
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_response: { stdout, stderr: '', interrupted: false },
    });
    const context = 'é'.repeat(20_000);
    reply = {
      status: 200,
      body: JSON.stringify({ hookSpecificOutput: { additionalContext: context } }),
    };
    received.length = 0;
    const run = await runInstalled(command, payload);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(received).toHaveLength(1);
    expect(received[0]?.body).toBe(payload);
    expect(run.stdout).toBe(`${reply.body}\n`);
  });

  it('refuses a tool call whose answer is longer than 8 MiB, though it holds a decision', async () => {
    const command = installedCommand('claude-code', 'alk_agent_huge');
    const decision = '{"hookSpecificOutput":{"permissionDecision":"allow"},"pad":"';
    reply = { status: 200, body: `${decision}${'x'.repeat((8 << 20) - decision.length)}"}` };
    const run = await runInstalled(command, '{"session_id":"s","hook_event_name":"PreToolUse"}');
    expect(run.stdout).toBe('');
    expect(run.status).toBe(2);
  }, 120_000);

  it('refuses a tool call (exit 2, the reason on stderr) when the kernel errs or is gone; passes other events', async () => {
    const command = installedCommand('claude-code', 'alk_agent_sh');
    reply = { status: 503, body: '{"code":"store_unavailable"}' };
    const tool = await runInstalled(command, '{"session_id":"s","hook_event_name":"PreToolUse"}');
    expect(tool.status).toBe(2);
    expect(tool.stderr).toContain('Airlock could not decide this call, so it was not run');
    expect(tool.stdout).toBe('');
    const other = await runInstalled(
      command,
      '{"session_id":"s","hook_event_name":"SessionStart"}',
    );
    expect(other.status).toBe(0);

    const { env: goneEnv } = sandbox();
    const gone = installHooks({
      agent: 'claude-code',
      scope: { kind: 'user' },
      env: goneEnv,
      // Nothing listens on port 9 of loopback here.
      url: 'http://127.0.0.1:9',
      token: 'alk_agent_sh',
      client,
    });
    const refused = await runInstalled(
      gone.command,
      '{"session_id":"s","hook_event_name":"PreToolUse"}',
    );
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(
      client === 'sh' ? 'curl exit 7' : 'the kernel at 127.0.0.1:9 did not accept a connection',
    );
  });

  it('refuses a tool call whose answer is not a decision: empty, a page, JSON without one, a redirect', async () => {
    const command = installedCommand('claude-code', 'alk_agent_sh');
    const tool = '{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash"}';
    for (const answer of [
      { status: 200, body: '' },
      { status: 200, body: '<!doctype html><title>app</title>' },
      { status: 200, body: '{"ok":true}' },
      { status: 302, body: 'Moved' },
      // A redirect's body is not the kernel's answer, even one that reads as an allow.
      { status: 302, body: '{"decision":"allow"}' },
      // A decision the agent does not know, which it would run the call on.
      { status: 200, body: '{"hookSpecificOutput":{"permissionDecision":"maybe"}}' },
      // One object and nothing more: not a second line, not text after it.
      { status: 200, body: '{"hookSpecificOutput":{"permissionDecision":"deny"}}\n<html>' },
      { status: 200, body: '{"decision":"deny"} garbage' },
    ]) {
      reply = answer;
      const run = await runInstalled(command, tool);
      expect(run.status, JSON.stringify(answer)).toBe(2);
      expect(run.stdout, JSON.stringify(answer)).toBe('');
      expect(run.stderr).toContain('Airlock could not decide this call, so it was not run');
    }
    // Another event passes, and a page is not handed to the agent as its context.
    reply = { status: 200, body: '<!doctype html><title>app</title>' };
    const prompt = await runInstalled(
      command,
      '{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"hi"}',
    );
    expect(prompt.status).toBe(0);
    // Only a note the user sees (systemMessage), never the page as the model's context.
    expect(Object.keys(JSON.parse(prompt.stdout))).toEqual(['systemMessage']);
    // Gemini CLI's decision is `decision`, Claude Code's `permissionDecision`: both are answers.
    reply = { status: 200, body: '{"decision":"allow"}' };
    const gemini = await runInstalled(
      installedCommand('gemini', 'alk_agent_sh'),
      '{"session_id":"s","hook_event_name":"BeforeTool"}',
    );
    expect(gemini.status).toBe(0);
    expect(gemini.stdout).toBe('{"decision":"allow"}\n');
  });

  it('refuses a tool call without its configuration file, and passes every other event', async () => {
    const command = installedCommand('claude-code', 'alk_agent_sh');
    const config = command.split(' ').at(-1)!;
    const moved = `${config}.gone`;
    execFileSync('mv', [config, moved]);
    const tool = await runInstalled(command, '{"session_id":"s","hook_event_name":"PreToolUse"}');
    expect(tool.status).toBe(2);
    expect(tool.stderr).toContain('cannot read the hook configuration');
    for (const event of ['UserPromptSubmit', 'SessionStart', 'BeforeAgent', 'PostToolUse']) {
      const run = await runInstalled(command, `{"session_id":"s","hook_event_name":"${event}"}`);
      expect(run.status, event).toBe(0);
      expect(JSON.parse(run.stdout).systemMessage, event).toMatch(/could not record this event/);
    }
  });

  it('refuses a URL or credential with a line break (it would end the config line)', () => {
    const { env } = sandbox();
    expect(() =>
      installHooks({
        agent: 'codex',
        scope: { kind: 'user' },
        env,
        url,
        token: 'alk_agent_x\nurl = "http://evil.example"',
        client,
      }),
    ).toThrow(/line break/);
  });
});

describe("the shell client's curl config and the installing shell's environment", () => {
  const staleShell = { AIRLOCK_URL: 'http://stale-kernel:4100', AIRLOCK_TOKEN: 'alk_member_other' };
  const curlOf = (home: string) => readFileSync(join(home, '.airlock', 'hooks-codex.curl'), 'utf8');

  it('names the kernel and credential given to install, as hooks.json does, not the environment', () => {
    const { home, env } = sandbox();
    installHooks({
      agent: 'codex',
      scope: { kind: 'user' },
      env: { ...env, ...staleShell },
      url: 'http://127.0.0.1:4100',
      token: 'alk_agent_given',
      client: 'sh',
    });
    const curl = curlOf(home);
    expect(curl).toContain('url = "http://127.0.0.1:4100/agent_api/v1/hooks/codex/default"');
    expect(curl).toContain('header = "authorization: Bearer alk_agent_given"');
    expect(curl).not.toContain('stale-kernel');
    expect(curl).not.toContain('alk_member_other');
    const stored = JSON.parse(readFileSync(join(home, '.airlock', 'hooks.json'), 'utf8'));
    expect(stored).toMatchObject({ url: 'http://127.0.0.1:4100', token: 'alk_agent_given' });
  });

  it('takes a --token-file given to install over AIRLOCK_TOKEN', () => {
    const { home, env } = sandbox();
    const tokenFile = join(home, 'agent-token');
    writeFileSync(tokenFile, 'alk_agent_from_file\n');
    installHooks({
      agent: 'codex',
      scope: { kind: 'user' },
      env: { ...env, ...staleShell },
      url: 'http://127.0.0.1:4100',
      tokenFile,
      client: 'sh',
    });
    expect(curlOf(home)).toContain('header = "authorization: Bearer alk_agent_from_file"');
  });

  it('falls back on the environment when neither the flags nor hooks.json name a kernel', () => {
    const { home, env } = sandbox();
    installHooks({
      agent: 'codex',
      scope: { kind: 'user' },
      env: { ...env, ...staleShell },
      client: 'sh',
    });
    const curl = curlOf(home);
    expect(curl).toContain('url = "http://stale-kernel:4100/agent_api/v1/hooks/codex/default"');
    expect(curl).toContain('header = "authorization: Bearer alk_member_other"');
  });
});
