import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { HookedAgent } from '@airlock/core';
import { defaultConfigPath, readHookConfig } from '../client/config.js';
import { BLOCK_BEGIN, codexConfigProblem } from './codex-toml.js';
import { HOOK_ENTRIES, isAirlockEntry } from './entries.js';
import { type InstallEnv, type InstallScope, settingsPath } from './targets.js';

/** One finding of `doctor`: what it checked, how it went, and what to do. */
export interface DoctorCheck {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}

/** The agent versions these hooks were measured with (docs/agents.md): major.minor, and the least patch. */
export const SUPPORTED_VERSIONS: Readonly<Record<HookedAgent, { prefix: string; min: number }>> = {
  'claude-code': { prefix: '2.1.', min: 295 },
  codex: { prefix: '0.169.', min: 0 },
  gemini: { prefix: '0.61.', min: 0 },
};

const BINARIES: Record<HookedAgent, string> = {
  'claude-code': 'claude',
  codex: 'codex',
  gemini: 'gemini',
};

/** Options of {@link doctor}. */
export interface DoctorOptions {
  agents: readonly HookedAgent[];
  scope: InstallScope;
  configPath?: string | undefined;
  /** The agent binaries (default: found on PATH). */
  binaries?: Partial<Record<HookedAgent, string>> | undefined;
  env?: (InstallEnv & NodeJS.ProcessEnv) | undefined;
}

async function timed(
  url: string,
  token: string,
): Promise<{ status: number; ms: number; body: unknown }> {
  const started = performance.now();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5000),
  });
  const body = await response.json().catch(() => null);
  return { status: response.status, ms: performance.now() - started, body };
}

async function kernelChecks(configPath: string, env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  let config: ReturnType<typeof readHookConfig>;
  try {
    config = readHookConfig(configPath, env);
  } catch (error) {
    return [
      {
        check: 'configuration',
        status: 'fail',
        detail: (error as Error).message,
        fix: 'airlock hooks install AGENT --url URL --token-file FILE',
      },
    ];
  }
  const checks: DoctorCheck[] = [
    { check: 'configuration', status: 'ok', detail: `${configPath}: kernel ${config.url}` },
  ];
  const base = config.url.replace(/\/+$/, '');
  try {
    await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5000) });
    checks.push({ check: 'kernel reachable', status: 'ok', detail: `${base}/healthz answered` });
  } catch (error) {
    checks.push({
      check: 'kernel reachable',
      status: 'fail',
      detail: `cannot reach ${base} (${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}): every tool call will be refused`,
      fix: 'start the kernel (airlock serve) or fix "url"',
    });
    return checks;
  }
  const profile = await timed(`${base}/agent_api/v1/profile/configuration`, config.token);
  if (profile.status === 401) {
    checks.push({
      check: 'credential',
      status: 'fail',
      detail: 'the kernel does not know this token',
      fix: 'create an agent credential: airlock tokens create --kind agent',
    });
    return checks;
  }
  if (profile.status === 403) {
    checks.push({
      check: 'credential',
      status: 'fail',
      detail: 'the token is not an agent credential (wrong plane)',
      fix: 'use an agent credential (alk_agent_…)',
    });
    return checks;
  }
  checks.push({
    check: 'credential',
    status: 'ok',
    detail: 'an agent credential the kernel accepts',
  });
  const declared = (profile.body as { configuration?: unknown } | null)?.configuration;
  checks.push(
    declared
      ? {
          check: 'profile',
          status: 'ok',
          detail: 'the application declares a profile configuration',
        }
      : {
          check: 'profile',
          status: 'fail',
          detail:
            'no profile configuration: every tool call will be refused (no_profile_configuration)',
          fix: 'declare one (PUT /agent_api/v1/profile/configuration), e.g. a default rule set of @airlock/hooks',
        },
  );
  const samples: number[] = [];
  for (let i = 0; i < 5; i += 1) samples.push((await timed(`${base}/healthz`, config.token)).ms);
  samples.sort((a, b) => a - b);
  checks.push({
    check: 'round trip',
    status: 'ok',
    detail: `median ${samples[2]?.toFixed(1)} ms to the kernel over 5 requests`,
  });
  return checks;
}

function settingsChecks(agent: HookedAgent, scope: InstallScope, env: InstallEnv): DoctorCheck[] {
  const path = settingsPath(agent, scope, env);
  const name = `${agent} hooks`;
  if (!existsSync(path)) {
    return [
      {
        check: name,
        status: 'fail',
        detail: `${path} does not exist`,
        fix: `airlock hooks install ${agent}`,
      },
    ];
  }
  const text = readFileSync(path, 'utf8');
  if (agent === 'codex') {
    const problem = codexConfigProblem(text);
    const checks: DoctorCheck[] = [
      problem
        ? {
            check: name,
            status: 'fail',
            detail: `${path}: ${problem}`,
            fix: 'fix config.toml, then airlock hooks install codex',
          }
        : text.includes(BLOCK_BEGIN)
          ? { check: name, status: 'ok', detail: `${path} holds Airlock's hooks` }
          : {
              check: name,
              status: 'fail',
              detail: `${path} has no Airlock hooks`,
              fix: 'airlock hooks install codex',
            },
    ];
    checks.push({
      check: 'codex hook trust',
      status: 'warn',
      detail: 'Codex skips hooks it has not been told to trust, silently',
      fix: 'trust them once in Codex, or run codex with --dangerously-bypass-hook-trust in automation',
    });
    return checks;
  }
  let settings: {
    hooks?: Record<
      string,
      {
        hooks?: {
          type?: string;
          command?: string;
          url?: string;
          onFailure?: string;
          timeout?: number;
          async?: boolean;
        }[];
      }[]
    >;
  };
  try {
    settings = JSON.parse(text) as typeof settings;
  } catch {
    return [
      {
        check: name,
        status: 'fail',
        detail: `${path} is not valid JSON: the agent ignores it`,
        fix: 'fix the JSON, then airlock hooks install',
      },
    ];
  }
  const checks: DoctorCheck[] = [];
  for (const entry of HOOK_ENTRIES[agent]) {
    const ours = (settings.hooks?.[entry.event] ?? [])
      .flatMap((group) => group.hooks ?? [])
      .filter((hook) => isAirlockEntry(hook));
    if (ours.length === 0) {
      checks.push({
        check: `${name} ${entry.event}`,
        status: 'fail',
        detail: 'not registered',
        fix: `airlock hooks install ${agent}`,
      });
      continue;
    }
    const hook = ours[0];
    if (entry.blockOnFailure && hook?.onFailure !== 'block') {
      checks.push({
        check: `${name} ${entry.event}`,
        status: 'fail',
        detail: 'registered without "onFailure": "block": a failed hook lets the call through',
        fix: `airlock hooks install ${agent}`,
      });
      continue;
    }
    const script = /\S*airlock-hook\.(js|bash|sh)\b/
      .exec(hook?.command ?? '')?.[0]
      ?.replace(/^'/, '');
    if (script && !existsSync(script)) {
      checks.push({
        check: `${name} ${entry.event}`,
        status: 'fail',
        detail: `the hook entry ${script} is missing`,
        fix: `airlock hooks install ${agent}`,
      });
      continue;
    }
    if (entry.background && hook?.type === 'command' && hook.async !== true) {
      checks.push({
        check: `${name} ${entry.event}`,
        status: 'warn',
        detail: 'registered without "async": true: the agent waits for the report of every call',
        fix: `airlock hooks install ${agent}`,
      });
      continue;
    }
    checks.push({ check: `${name} ${entry.event}`, status: 'ok', detail: 'registered' });
  }
  // An event an earlier install registered and this one no longer does (Gemini CLI's PreCompress).
  const expected = new Set(HOOK_ENTRIES[agent].map((entry) => entry.event));
  for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
    if (expected.has(event)) continue;
    if (!groups.flatMap((group) => group.hooks ?? []).some((hook) => isAirlockEntry(hook)))
      continue;
    checks.push({
      check: `${name} ${event}`,
      status: 'warn',
      detail: `registered by an earlier install; Airlock no longer hooks ${event} (see docs/agents.md)`,
      fix: `airlock hooks install ${agent}`,
    });
  }
  return checks;
}

function versionCheck(agent: HookedAgent, binary: string | undefined): DoctorCheck {
  const command = binary ?? BINARIES[agent];
  const ran = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  if (ran.error || ran.status !== 0) {
    return {
      check: `${agent} version`,
      status: 'warn',
      detail: `${command} --version did not run; the version is unchecked`,
    };
  }
  const version = /\d+\.\d+\.\d+/.exec(ran.stdout)?.[0] ?? '';
  const supported = SUPPORTED_VERSIONS[agent];
  const patch = Number(version.slice(supported.prefix.length));
  const ok = version.startsWith(supported.prefix) && patch >= supported.min;
  return ok
    ? { check: `${agent} version`, status: 'ok', detail: `${version} is supported` }
    : {
        check: `${agent} version`,
        status: 'warn',
        detail: `${version || 'an unknown version'} was not measured (supported: ${supported.prefix}${supported.min}+); its fail-open behaviour may differ`,
      };
}

/**
 * Checks the whole path and says what to fix: the hooks' configuration,
 * the kernel reachable, the credential valid and of the agent plane, a
 * profile declared, the hooks registered with their fail-closed settings,
 * the agent version measured, and the round trip's latency.
 */
export async function doctor(options: DoctorOptions): Promise<DoctorCheck[]> {
  const env = options.env ?? process.env;
  const checks = await kernelChecks(options.configPath ?? defaultConfigPath(env), env);
  for (const agent of options.agents) {
    checks.push(...settingsChecks(agent, options.scope, env));
    checks.push(versionCheck(agent, options.binaries?.[agent]));
  }
  return checks;
}
