// Measures how each pinned agent treats a pre-tool hook that fails (exit 1, timeout, unreachable
// HTTP, unknown JSON, ask …): does the scripted `rm -r ./build` run anyway? Prints a markdown table
// for docs/agents.md. Re-run for each pinned version:
//   pnpm --filter @airlock/tests measure:fail-open
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type AgentName, installedAgents } from '../src/agents/agent-binaries.js';
import { type AgentSandbox, createAgentSandbox, runAgent } from '../src/agents/agent-sandbox.js';
import { denyOutput, installNativeHook, writeHookScript } from '../src/agents/native-hooks.js';

interface Case {
  name: string;
  agents?: AgentName[];
  /** Sets the hook up; returns extra run arguments or env when needed. */
  setup: (
    sandbox: AgentSandbox,
    context: { deadPort: number; http500: string },
  ) => { untrusted?: boolean } | undefined;
}

const claudeShapedDeny = denyOutput('claude-code', 'denied by a Claude-shaped answer');
const cases: Case[] = [
  {
    name: 'exit 2 (control: blocks)',
    setup: (s) =>
      void installNativeHook(s, {
        command: writeHookScript(s, 'h', 'cat >/dev/null\necho blocked >&2\nexit 2'),
        timeoutSeconds: 10,
      }),
  },
  {
    name: 'exit 1',
    setup: (s) =>
      void installNativeHook(s, {
        command: writeHookScript(s, 'h', 'cat >/dev/null\nexit 1'),
        timeoutSeconds: 10,
      }),
  },
  {
    name: 'timeout (hook sleeps past its 2 s timeout)',
    setup: (s) =>
      void installNativeHook(s, {
        command: writeHookScript(s, 'h', 'cat >/dev/null\nsleep 20'),
        timeoutSeconds: 2,
      }),
  },
  {
    name: 'unknown JSON on stdout',
    setup: (s) =>
      void installNativeHook(s, {
        command: writeHookScript(s, 'h', `cat >/dev/null\necho '{"verdict":"no"}'`),
        timeoutSeconds: 10,
      }),
  },
  {
    name: 'ask',
    setup: (s) => {
      const body =
        s.agent === 'gemini'
          ? `{"decision":"ask","reason":"a person decides"}`
          : `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"a person decides"}}`;
      installNativeHook(s, {
        command: writeHookScript(s, 'h', `cat >/dev/null\necho '${body}'`),
        timeoutSeconds: 10,
      });
      return undefined;
    },
  },
  {
    name: 'Claude-shaped deny JSON',
    agents: ['gemini', 'codex'],
    setup: (s) =>
      void installNativeHook(s, {
        command: writeHookScript(s, 'h', `cat >/dev/null\necho '${claudeShapedDeny}'`),
        timeoutSeconds: 10,
      }),
  },
  {
    name: 'exit 1 with onFailure: "block"',
    agents: ['claude-code'],
    setup: (s) =>
      void installNativeHook(s, {
        command: writeHookScript(s, 'h', 'cat >/dev/null\nexit 1'),
        timeoutSeconds: 10,
        extra: { onFailure: 'block' },
      }),
  },
  {
    name: 'timeout with onFailure: "block"',
    agents: ['claude-code'],
    setup: (s) =>
      void installNativeHook(s, {
        command: writeHookScript(s, 'h', 'cat >/dev/null\nsleep 20'),
        timeoutSeconds: 2,
        extra: { onFailure: 'block' },
      }),
  },
  {
    name: 'HTTP hook, nothing listening',
    agents: ['claude-code'],
    setup: (s, { deadPort }) => void httpHook(s, `http://127.0.0.1:${deadPort}/hook`),
  },
  {
    name: 'HTTP hook answering 500',
    agents: ['claude-code'],
    setup: (s, { http500 }) => void httpHook(s, http500),
  },
  {
    name: 'HTTP hook, nothing listening, onFailure: "block"',
    agents: ['claude-code'],
    setup: (s, { deadPort }) =>
      void httpHook(s, `http://127.0.0.1:${deadPort}/hook`, { onFailure: 'block' }),
  },
  {
    name: 'malformed hook entry (no command)',
    agents: ['claude-code'],
    setup: (s) => void installNativeHook(s, { command: '', timeoutSeconds: 10 }),
  },
  {
    name: 'deny hook not trusted (no --dangerously-bypass-hook-trust)',
    agents: ['codex'],
    setup: (s) => {
      installNativeHook(s, {
        command: writeHookScript(s, 'h', `cat >/dev/null\necho '${claudeShapedDeny}'`),
        timeoutSeconds: 10,
      });
      return { untrusted: true };
    },
  },
];

function httpHook(sandbox: AgentSandbox, url: string, extra: Record<string, unknown> = {}): void {
  installNativeHook(sandbox, {
    command: '',
    timeoutSeconds: 5,
    extra: { type: 'http', url, command: undefined, ...extra },
  });
}

const failing = createServer((_request, response) => {
  response.writeHead(500, { 'content-type': 'text/plain' });
  response.end('kernel error');
});
await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
const http500 = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/hook`;
const dead = createServer();
await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
const deadPort = (dead.address() as AddressInfo).port;
await new Promise<void>((resolve) => dead.close(() => resolve()));

const agents = installedAgents();
const rows: string[] = ['| agent | hook | the call | run |', '| --- | --- | --- | --- |'];
for (const testCase of cases) {
  for (const agent of agents) {
    if (testCase.agents && !testCase.agents.includes(agent)) continue;
    const sandbox = await createAgentSandbox(agent, [{ kind: 'shell', command: 'rm -r ./build' }]);
    try {
      const extra = testCase.setup(sandbox, { deadPort, http500 });
      const untrusted = extra?.untrusted === true;
      const run = await runAgent(sandbox, {
        timeoutMs: 60_000,
        ...(untrusted ? { trustHooks: false } : {}),
      });
      const ran = !existsSync(join(sandbox.project, 'build'));
      const outcome = run.timedOut
        ? 'hung (killed after 60 s)'
        : `exit ${run.code}, ${(run.durationMs / 1000).toFixed(1)} s`;
      rows.push(`| ${agent} | ${testCase.name} | ${ran ? '**ran**' : 'blocked'} | ${outcome} |`);
      console.error(rows.at(-1));
    } finally {
      await sandbox.close();
    }
  }
}
failing.close();
console.log(rows.join('\n'));
