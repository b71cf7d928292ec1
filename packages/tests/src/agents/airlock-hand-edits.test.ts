import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { doctor } from '@airlock/hooks';
import { describe, expect, it } from 'vitest';
import { type AgentName, agentNames } from './agent-binaries.js';
import { createAgentSandbox, runAgent } from './agent-sandbox.js';
import { agentTests } from './agent-tests.js';
import { installAirlockHooks, startAirlockKernel } from './airlock-hooks.js';

// Airlock's entries edited by hand. A person hooks one agent by copying another's entry into its
// settings: the entry runs the hook client for the other agent, whose protocol does not know this
// agent's tool check (Gemini CLI's BeforeTool, the others' PreToolUse). It answered nothing (exit
// 0), and the agent ran the call unasked; it is refused now. An entry of a shape the agent does not
// run ("type": "Command"; a timeout as text in Claude Code) lets the call run: doctor fails it.
const SETTINGS: Record<AgentName, string> = {
  'claude-code': '.claude/settings.json',
  codex: '.codex/config.toml',
  gemini: '.gemini/settings.json',
};

/** Whose client each agent's copied entry runs: one whose tool check has another name. */
const COPIED_FROM: Record<AgentName, AgentName> = {
  'claude-code': 'gemini',
  codex: 'gemini',
  gemini: 'claude-code',
};

const PRE_TOOL: Record<AgentName, string> = {
  'claude-code': 'PreToolUse',
  codex: 'PreToolUse',
  gemini: 'BeforeTool',
};

/** Hand edits of a JSON agent's pre-tool entry. */
const SHAPE_EDITS: Record<string, (hook: Record<string, unknown>) => void> = {
  '"type": "Command"': (hook) => {
    hook.type = 'Command';
  },
  'the timeout as text': (hook) => {
    hook.timeout = String(hook.timeout);
  },
};

describe.each(agentNames)(
  "%s with Airlock's entries edited by hand",
  { timeout: 300_000 },
  (agent) => {
    const { missing, hold } = agentTests(agent);

    /** A kernel refusing every call, and the agent hooked to it, asked for `echo ran >> ran.log`. */
    async function hooked() {
      const airlock = hold(await startAirlockKernel());
      await airlock.setProfile({
        approval_mode: 'rules',
        approval_rules: [{ tool: '*', verdict: 'deny', reason: 'nothing runs here' }],
      });
      const sandbox = hold(
        await createAgentSandbox(agent, [{ kind: 'shell', command: 'echo ran >> ran.log' }]),
      );
      installAirlockHooks(sandbox, airlock);
      const root = agent === 'codex' ? sandbox.codexHome : sandbox.home;
      return { sandbox, settings: join(root, SETTINGS[agent].replace(/^\.codex\//, '')) };
    }

    it.skipIf(missing)(
      'an entry copied from another agent refuses the call: nothing runs',
      async () => {
        const { sandbox, settings: path } = await hooked();
        const installed = readFileSync(path, 'utf8');
        const copied = installed.replaceAll(`.js ${agent} `, `.js ${COPIED_FROM[agent]} `);
        expect(copied).not.toBe(installed);
        writeFileSync(path, copied);
        const run = await runAgent(sandbox);
        expect(run.timedOut, run.stderr).toBe(false);
        expect(existsSync(join(sandbox.project, 'ran.log'))).toBe(false);
        expect(sandbox.server.toolOutputs().join('\n')).toContain("another agent's tool check");
      },
    );

    it.skipIf(missing || agent === 'codex').each(Object.keys(SHAPE_EDITS))(
      'with %s, a call runs only where doctor fails the entry',
      async (edit) => {
        const { sandbox, settings } = await hooked();
        const parsed = JSON.parse(readFileSync(settings, 'utf8'));
        SHAPE_EDITS[edit]?.(parsed.hooks[PRE_TOOL[agent]][0].hooks[0]);
        writeFileSync(settings, JSON.stringify(parsed, null, 2));
        const run = await runAgent(sandbox);
        expect(run.timedOut, run.stderr).toBe(false);
        const ran = existsSync(join(sandbox.project, 'ran.log'));
        const env = { HOME: sandbox.home, CODEX_HOME: sandbox.codexHome };
        const checks = await doctor({
          agents: [agent],
          scope: { kind: 'user' },
          env,
          binaries: {},
        });
        const entry = checks.find((check) => check.check === `${agent} hooks ${PRE_TOOL[agent]}`);
        if (ran)
          expect(entry, JSON.stringify(sandbox.server.toolOutputs())).toMatchObject({
            status: 'fail',
          });
        else expect(sandbox.server.toolOutputs().join('\n')).toContain('nothing runs here');
      },
    );
  },
);
