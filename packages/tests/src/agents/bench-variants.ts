import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentName } from './agent-binaries.js';
import type { AgentSandbox } from './agent-sandbox.js';
import {
  allowOutput,
  installNativeHook,
  installNativeHooks,
  preToolEvent,
  writeHookScript,
} from './native-hooks.js';

/** One way of hooking an agent's tool calls, measured by `pnpm bench:hooks`. */
export interface HookVariant {
  name: string;
  kind: 'none' | 'trivial' | 'airlock';
  /** How the agent reaches the hook: a process per call, or an HTTP request (Claude Code). */
  transport: 'none' | 'command' | 'http';
  /** The trivial always-allow hook other hooks of the same transport are compared with. */
  floor?: boolean;
  /** Installs the hook into the sandbox; may return a teardown. */
  setup(sandbox: AgentSandbox): Promise<(() => Promise<void>) | undefined> | undefined;
}

/** No hook at all. */
export const noHook: HookVariant = {
  name: 'no hook',
  kind: 'none',
  transport: 'none',
  setup: () => undefined,
};

/** A command hook that reads its input and always allows: the cheapest hook an agent can have. */
function trivialCommandHook(agent: AgentName): HookVariant {
  return {
    name: 'trivial allow (sh)',
    kind: 'trivial',
    transport: 'command',
    floor: true,
    setup(sandbox) {
      const script = writeHookScript(
        sandbox,
        'allow',
        `cat >/dev/null\nprintf '%s' '${allowOutput(agent)}'`,
      );
      installNativeHook(sandbox, { command: script, timeoutSeconds: 30 });
      return undefined;
    },
  };
}

/**
 * The trivial hook on the tool's two events (before it runs, and after, where Airlock records
 * what ran): what an agent's own hook machinery costs for the two processes Airlock's command
 * hook starts per call. Shown beside the floor, not used as it.
 */
function trivialPrePostHook(agent: AgentName): HookVariant {
  return {
    name: 'trivial allow (sh, pre+post)',
    kind: 'trivial',
    transport: 'command',
    setup(sandbox) {
      const allow = writeHookScript(
        sandbox,
        'allow',
        `cat >/dev/null\nprintf '%s' '${allowOutput(agent)}'`,
      );
      const after = writeHookScript(sandbox, 'after', `cat >/dev/null\nprintf '{}'`);
      installNativeHooks(sandbox, {
        [preToolEvent[agent].event]: { command: allow, timeoutSeconds: 30 },
        [agent === 'gemini' ? 'AfterTool' : 'PostToolUse']: { command: after, timeoutSeconds: 30 },
      });
      return undefined;
    },
  };
}

/** The same trivial hook as a Node.js script: what any hook written in JavaScript starts from. */
function trivialNodeHook(agent: AgentName): HookVariant {
  return {
    name: 'trivial allow (node)',
    kind: 'trivial',
    transport: 'command',
    setup(sandbox) {
      const answer = JSON.stringify(allowOutput(agent));
      const script = writeHookScript(
        sandbox,
        'allow-node',
        `exec ${process.execPath} -e 'process.stdin.resume();process.stdin.on("end",()=>process.stdout.write(${answer.replace(/'/g, "'\\''")}))'`,
      );
      installNativeHook(sandbox, { command: script, timeoutSeconds: 30 });
      return undefined;
    },
  };
}

/**
 * Claude Code's HTTP hook answered by a loopback server that always allows:
 * on PreToolUse alone (the floor), or on PostToolUse too (answered `{}`), as
 * Airlock's HTTP entries are.
 */
function trivialHttpHook(events: 'pre' | 'pre+post'): HookVariant {
  return {
    name: events === 'pre' ? 'trivial allow (http)' : 'trivial allow (http, pre+post)',
    kind: 'trivial',
    transport: 'http',
    floor: events === 'pre',
    async setup(sandbox) {
      const server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const post = Buffer.concat(chunks).includes('"PostToolUse"');
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(post ? '{}' : allowOutput('claude-code'));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const hook = {
        command: '',
        timeoutSeconds: 30,
        extra: { type: 'http', url: `http://127.0.0.1:${port}/hook`, command: undefined },
      };
      installNativeHooks(sandbox, {
        PreToolUse: hook,
        ...(events === 'pre+post' ? { PostToolUse: hook } : {}),
      });
      return () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        });
    },
  };
}

/** The floors measured for an agent: a trivial command hook, and an HTTP one where the agent has HTTP hooks. */
export function floorVariants(agent: AgentName): HookVariant[] {
  const command = [trivialCommandHook(agent), trivialPrePostHook(agent), trivialNodeHook(agent)];
  return agent === 'claude-code'
    ? [...command, trivialHttpHook('pre'), trivialHttpHook('pre+post')]
    : command;
}
