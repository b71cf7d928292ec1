import { TOOL_MANIFESTS } from '@airlock/hooks';
import { describe, expect, it } from 'vitest';
import { type AgentName, agentNames } from './agent-binaries.js';
import { type AgentSandbox, createAgentSandbox, runAgent } from './agent-sandbox.js';
import { agentTests } from './agent-tests.js';
import { guardSecrets } from './airlock-hooks.js';
import type { ScriptStep } from './model-servers/scripted-server.js';

// Airlock's manifest for an agent says which input fields of each tool name a path, so path
// rules can read them. A tool the agent gained in a new version (Gemini CLI 0.61's grep_search,
// the old search_file_content renamed; Codex's view_image) is read by no path rule until it is
// declared: under a deny of secrets/** it read secrets/key unasked. The first test fails when a
// pinned agent offers its model a tool that is neither declared nor listed below as reviewed.
// The second shows the newer tools meet the rules with the real agents.

/** Tools a pinned agent offers that its hooks never report, so no manifest entry is read, and why. */
const REVIEWED: Record<AgentName, Record<string, string>> = {
  'claude-code': {},
  codex: {
    write_stdin: 'types into a process an earlier exec_command started; no hook fires for it',
    multi_agent_v1: "a namespace of subagent tools, whose calls meet the hooks as the session's do",
  },
  gemini: {},
};

/** The agent's hook name for a tool its model is offered (Codex reports exec_command as Bash). */
const hookName = (agent: AgentName, name: string) =>
  agent === 'codex' && name === 'exec_command' ? 'Bash' : name;

/**
 * Claude Code's deferred tools: only named in its prompt ("The following deferred tools are now
 * available via ToolSearch…", one per line) until the model loads one with ToolSearch.
 */
function deferredTools(raw: string): string[] {
  const text = raw.replaceAll('\\n', '\n');
  const start = text.indexOf('deferred tools are now available via ToolSearch');
  if (start < 0) return [];
  const list = text.slice(text.indexOf(':\n', start) + 2);
  return list.slice(0, list.indexOf('\n\n')).split('\n').filter(Boolean);
}

/** The tools the agent offered its model in its first turn, by hook name. */
function offeredTools(sandbox: AgentSandbox): string[] {
  const turn = sandbox.server.turns()[0];
  const body = turn?.body as {
    tools?: { name?: string; type?: string; functionDeclarations?: { name: string }[] }[];
  };
  return [
    ...(body?.tools ?? []).flatMap((tool) =>
      tool.functionDeclarations
        ? tool.functionDeclarations.map((declared) => declared.name)
        : [tool.name ?? tool.type ?? ''],
    ),
    ...(sandbox.agent === 'claude-code' ? deferredTools(turn?.raw ?? '') : []),
  ].map((name) => hookName(sandbox.agent, name));
}

const SECRET = 'TOPSECRET-4711';

/** A call of a tool the agent gained lately that reaches secrets/ (Claude Code: its Monitor). */
const reachesSecrets: Record<AgentName, ScriptStep[]> = {
  'claude-code': [
    { kind: 'tool', name: 'ToolSearch', input: { query: 'select:Monitor' } },
    {
      kind: 'tool',
      name: 'Monitor',
      input: { description: 'watch the key', command: 'cat secrets/key', timeout_ms: 5000 },
    },
  ],
  codex: [{ kind: 'tool', name: 'view_image', input: { path: 'secrets/key.png' } }],
  gemini: [{ kind: 'tool', name: 'grep_search', input: { pattern: 'TOP', dir_path: 'secrets' } }],
};

describe.each(agentNames)(
  "%s: the pinned agent's tools under path rules",
  { timeout: 300_000 },
  (agent) => {
    const { missing, hold } = agentTests(agent);

    it.skipIf(missing)('every tool it offers its model is declared or reviewed', async () => {
      const sandbox = hold(await createAgentSandbox(agent, [{ kind: 'text', text: 'done' }]));
      const run = await runAgent(sandbox);
      expect(run.timedOut, run.stderr).toBe(false);
      const offered = offeredTools(sandbox);
      expect(offered.length).toBeGreaterThan(3);
      const declared = new Set(TOOL_MANIFESTS[agent].map((tool) => tool.name));
      const unknown = offered.filter((name) => !declared.has(name) && !(name in REVIEWED[agent]));
      expect(unknown, `declare these in packages/hooks/src/manifests/tool-manifests.ts`).toEqual(
        [],
      );
    });

    it.skipIf(missing)(
      'a newer tool reaching secrets/ is refused or put to a person under a deny of secrets/**',
      async () => {
        const sandbox = hold(await createAgentSandbox(agent, reachesSecrets[agent]));
        // A 1x1 PNG beside the key: Codex shows the model an image it can read.
        const png =
          'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
        const airlock = hold(
          await guardSecrets(sandbox, {
            'secrets/key': `${SECRET}\n`,
            'secrets/key.png': Buffer.from(png, 'base64'),
          }),
        );
        const run = await runAgent(sandbox);
        expect(run.timedOut, run.stderr).toBe(false);
        const outputs = sandbox.server.toolOutputs();
        const everything = sandbox.server.requests.map((request) => request.raw).join('\n');
        expect(everything, JSON.stringify(outputs)).not.toContain(SECRET);
        // A path the manifest names is refused by the deny rule; Monitor's shell command, read as
        // any shell command is, waits for a person. Either way the model read why.
        const refused = agent !== 'claude-code';
        expect(outputs.at(-1), JSON.stringify(outputs)).toContain(
          refused ? 'denied by rule 0 of rule set house' : "waits for a person's approval",
        );
        const [story] = await airlock.member.runs.list({ limit: 1 });
        const tasks = await airlock.member.runs.run(story?.id ?? '').tasks();
        const last = reachesSecrets[agent].at(-1);
        expect(
          tasks.map((task) => [task.tool_name, task.state]),
          JSON.stringify(tasks),
        ).toContainEqual([
          last?.kind === 'tool' ? last.name : '',
          refused ? 'failed' : 'needs_approval',
        ]);
      },
    );
  },
);
