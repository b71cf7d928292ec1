import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentName, agentBinary } from './agent-binaries.js';
import { startAnthropicServer } from './model-servers/anthropic.js';
import { startGeminiServer } from './model-servers/gemini.js';
import { startResponsesServer } from './model-servers/openai-responses.js';
import type { ModelServer, ScriptStep } from './model-servers/scripted-server.js';

/** One agent's world for a test: a temp HOME (and CODEX_HOME), a project with build/, a scripted model. */
export interface AgentSandbox {
  agent: AgentName;
  home: string;
  /** The agent's working directory; holds `build/artifact.txt` to be removed by `rm -r ./build`. */
  project: string;
  /** Codex's config folder (CODEX_HOME); unused by the other agents. */
  codexHome: string;
  server: ModelServer;
  /** The environment every run of this agent gets (no variable of the caller's leaks in but PATH). */
  env: Record<string, string>;
  close(): Promise<void>;
}

const startServer: Record<AgentName, (script: ScriptStep[]) => Promise<ModelServer>> = {
  'claude-code': startAnthropicServer,
  codex: startResponsesServer,
  gemini: startGeminiServer,
};

/** Codex's config pointing it at the scripted Responses server (see {@link writeCodexConfig}). */
function codexConfig(serverUrl: string): string {
  return [
    'model = "gpt-scripted"',
    'model_provider = "scripted"',
    '',
    '[model_providers.scripted]',
    'name = "scripted"',
    `base_url = "${serverUrl}/v1"`,
    'wire_api = "responses"',
    '',
  ].join('\n');
}

/** Writes Codex's config.toml: the scripted provider first, then any extra TOML (hook tables). */
export function writeCodexConfig(sandbox: AgentSandbox, extraToml = ''): void {
  writeFileSync(
    join(sandbox.codexHome, 'config.toml'),
    `${codexConfig(sandbox.server.url)}${extraToml}`,
  );
}

function environment(agent: AgentName, home: string, codexHome: string, serverUrl: string) {
  const base: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
  };
  if (agent === 'claude-code') {
    return {
      ...base,
      ANTHROPIC_BASE_URL: serverUrl,
      ANTHROPIC_API_KEY: 'scripted',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      // As root, Claude Code refuses its bypass modes unless told it runs in a sandbox.
      IS_SANDBOX: '1',
    };
  }
  if (agent === 'codex') return { ...base, CODEX_HOME: codexHome };
  return {
    ...base,
    GOOGLE_GEMINI_BASE_URL: serverUrl,
    GEMINI_API_KEY: 'scripted',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    // Gemini CLI otherwise re-executes itself with a larger heap: seconds of start-up for nothing here.
    GEMINI_CLI_NO_RELAUNCH: 'true',
  };
}

/** Creates the sandbox and its scripted model server; the agent's own config is written too. */
export async function createAgentSandbox(
  agent: AgentName,
  script: ScriptStep[],
): Promise<AgentSandbox> {
  const root = mkdtempSync(join(tmpdir(), `airlock-agent-${agent}-`));
  const home = join(root, 'home');
  const project = join(root, 'project');
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(join(project, 'build'), { recursive: true });
  writeFileSync(join(project, 'build', 'artifact.txt'), 'built\n');
  const server = await startServer[agent](script);
  const sandbox: AgentSandbox = {
    agent,
    home,
    project,
    codexHome,
    server,
    env: environment(agent, home, codexHome, server.url),
    async close() {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
  if (agent === 'codex') writeCodexConfig(sandbox);
  if (agent === 'gemini') {
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2),
    );
  }
  return sandbox;
}

/** How one run of an agent ended. */
export interface AgentRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
}

/** Options of {@link runAgent}. */
export interface RunAgentOptions {
  prompt?: string;
  /** The agent's own permission mode: Claude Code's --permission-mode, Codex's exec flags, Gemini's --approval-mode. */
  permissionMode?: string;
  extraArgs?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Codex only: pass --dangerously-bypass-hook-trust (default true; false shows what an untrusted hook does). */
  trustHooks?: boolean;
  /** Called once the process is started (a test can kill a kernel mid-session from here). */
  onSpawn?: (child: ChildProcess) => void;
}

/** Codex exec's flags for each permission mode it offers (0.169: sandbox policies, auto review, bypass). */
export const codexModeFlags: Record<string, string[]> = {
  bypass: ['--dangerously-bypass-approvals-and-sandbox'],
  'danger-full-access': ['--sandbox', 'danger-full-access'],
  'workspace-write': ['--sandbox', 'workspace-write'],
  'read-only': ['--sandbox', 'read-only'],
  'approve-for-me': ['--approve-for-me'],
};

/** Every permission mode each agent offers headless, by the name {@link RunAgentOptions.permissionMode} takes. */
export const permissionModes: Record<AgentName, readonly string[]> = {
  'claude-code': ['acceptEdits', 'auto', 'bypassPermissions', 'manual', 'dontAsk', 'plan'],
  codex: Object.keys(codexModeFlags),
  gemini: ['default', 'auto_edit', 'yolo', 'plan'],
};

function argsFor(sandbox: AgentSandbox, options: RunAgentOptions): string[] {
  const prompt = options.prompt ?? 'Remove the build folder.';
  const extra = options.extraArgs ?? [];
  if (sandbox.agent === 'claude-code') {
    return [
      '-p',
      prompt,
      '--output-format',
      'json',
      '--permission-mode',
      options.permissionMode ?? 'bypassPermissions',
      ...extra,
    ];
  }
  if (sandbox.agent === 'codex') {
    const mode = codexModeFlags[options.permissionMode ?? 'bypass'];
    if (!mode) throw new Error(`unknown Codex mode ${options.permissionMode}`);
    const trust = options.trustHooks === false ? [] : ['--dangerously-bypass-hook-trust'];
    return ['exec', '--skip-git-repo-check', '--json', ...trust, ...mode, ...extra, prompt];
  }
  return [
    '-p',
    prompt,
    '--output-format',
    'json',
    '--approval-mode',
    options.permissionMode ?? 'yolo',
    ...extra,
  ];
}

/** Runs the agent once in its sandbox, headless, and waits for it to exit (killed after timeoutMs). */
export function runAgent(sandbox: AgentSandbox, options: RunAgentOptions = {}): Promise<AgentRun> {
  const started = Date.now();
  const child = spawn(agentBinary(sandbox.agent), argsFor(sandbox, options), {
    cwd: sandbox.project,
    env: { ...sandbox.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  options.onSpawn?.(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 120_000);
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started, timedOut });
    });
  });
}
