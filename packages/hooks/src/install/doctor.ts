import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import type { HookedAgent } from '@airlock/core';
import { defaultConfigPath, readHookConfig } from '../client/config.js';
import { claudeManagedChecks } from './doctor-claude-managed.js';
import { codexManagedChecks } from './doctor-codex-managed.js';
import { hookEndpointsCheck } from './doctor-endpoints.js';
import { geminiFolderTrust } from './doctor-gemini.js';
import {
  ANSWER_BYTES_MAX,
  AnswerTooLarge,
  entryKernelChecks,
  entryKernels,
  failure,
  request,
} from './doctor-kernels.js';
import { projectRootCheck } from './doctor-project-root.js';
import { settingsChecks } from './doctor-settings.js';
import type { DoctorCheck } from './doctor-types.js';
import { fileError } from './file-writes.js';
import { isJsonObject } from './json-settings.js';
import type { InstallEnv, InstallScope } from './targets.js';

export type { DoctorCheck } from './doctor-types.js';

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
  /** Where Codex reads its administrator's requirements.toml and managed_config.toml (default /etc/codex). */
  codexManagedDir?: string | undefined;
  /** Where Claude Code reads its managed settings (default /etc/claude-code; macOS: /Library/Application Support/ClaudeCode). */
  claudeManagedDir?: string | undefined;
  /**
   * The directory the agent runs in, checked against the profile's project_root (default:
   * the project's folder with a project scope, else the directory doctor runs in).
   */
  workingDirectory?: string | undefined;
}

/** The credential and profile checks: an authenticated Airlock route, and its expected answer. */
async function credentialChecks(
  base: string,
  token: string,
  directory: string,
): Promise<DoctorCheck[]> {
  let profile: Awaited<ReturnType<typeof request>>;
  try {
    profile = await request(`${base}/agent_api/v1/profile/configuration`, token, ANSWER_BYTES_MAX);
  } catch (error) {
    return [
      {
        check: 'credential',
        status: 'fail',
        detail: `${base} answered /healthz, then not the agent's profile request (${failure(error)}): every tool call will be refused`,
        fix: 'check the kernel (its log) and that "url" points at it',
      },
    ];
  }
  if (profile.status === 401) {
    return [
      {
        check: 'credential',
        status: 'fail',
        detail: 'the kernel does not know this token',
        fix: 'create an agent credential: airlock tokens create --kind agent',
      },
    ];
  }
  if (profile.status === 403) {
    return [
      {
        check: 'credential',
        status: 'fail',
        detail: 'the token is not an agent credential (wrong plane)',
        fix: 'use an agent credential (alk_agent_…)',
      },
    ];
  }
  // Airlock answers 200 with the stored configuration, or with `null` when there is none.
  const answered =
    profile.status === 200 &&
    (profile.body === null || (isJsonObject(profile.body) && 'configuration' in profile.body));
  if (!answered) {
    return [
      {
        check: 'credential',
        status: 'fail',
        detail: `${base} answered the agent's profile request with ${profile.status}${profile.body === undefined ? ' and no JSON' : ''}, not as Airlock does: it is not an Airlock kernel, or not this version`,
        fix: 'point "url" at the Airlock kernel (airlock serve prints it)',
      },
    ];
  }
  const declared = isJsonObject(profile.body) ? profile.body.configuration : undefined;
  const placed = declared ? projectRootCheck(declared, directory) : null;
  return [
    { check: 'credential', status: 'ok', detail: 'an agent credential the kernel accepts' },
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
    ...(placed ? [placed] : []),
  ];
}

async function kernelChecks(
  configPath: string,
  env: NodeJS.ProcessEnv,
  directory: string,
  agents: readonly HookedAgent[],
): Promise<DoctorCheck[]> {
  let config: ReturnType<typeof readHookConfig>;
  try {
    config = readHookConfig(configPath, env);
  } catch (error) {
    return [
      {
        check: 'configuration',
        status: 'fail',
        // A credential file it cannot read fails with the file system's own words: name the file.
        detail: (error as { path?: string }).path
          ? fileError((error as { path: string }).path, error).message
          : (error as Error).message,
        fix: 'airlock hooks install AGENT --url URL --token-file FILE',
      },
    ];
  }
  const checks: DoctorCheck[] = [
    { check: 'configuration', status: 'ok', detail: `${configPath}: kernel ${config.url}` },
  ];
  const base = config.url.replace(/\/+$/, '');
  let health: Awaited<ReturnType<typeof request>>;
  try {
    health = await request(`${base}/healthz`);
  } catch (error) {
    checks.push(
      error instanceof AnswerTooLarge
        ? {
            check: 'kernel reachable',
            status: 'fail',
            detail: `${base}/healthz answered with ${failure(error)}, not Airlock's {"ok":true}: "url" does not point at an Airlock kernel, so every tool call will be refused`,
            fix: 'point "url" at the Airlock kernel (airlock serve prints it)',
          }
        : {
            check: 'kernel reachable',
            status: 'fail',
            detail: `cannot reach ${base} (${failure(error)}): every tool call will be refused`,
            fix: 'start the kernel (airlock serve) or fix "url"',
          },
    );
    return checks;
  }
  if (health.status !== 200 || !isJsonObject(health.body) || health.body.ok !== true) {
    checks.push({
      check: 'kernel reachable',
      status: 'fail',
      detail: `${base}/healthz answered ${health.status}, not Airlock's {"ok":true}: "url" does not point at an Airlock kernel, so every tool call will be refused`,
      fix: 'point "url" at the Airlock kernel (airlock serve prints it)',
    });
    return checks;
  }
  checks.push({ check: 'kernel reachable', status: 'ok', detail: `${base}/healthz answered` });
  const credential = await credentialChecks(base, config.token, directory);
  checks.push(...credential);
  if (credential.some((check) => check.check === 'credential' && check.status === 'fail')) {
    return checks;
  }
  checks.push(await hookEndpointsCheck(base, config.token, agents));
  try {
    const samples: number[] = [];
    for (let i = 0; i < 5; i += 1) samples.push((await request(`${base}/healthz`)).ms);
    samples.sort((a, b) => a - b);
    checks.push({
      check: 'round trip',
      status: 'ok',
      detail: `median ${samples[2]?.toFixed(1)} ms to the kernel over 5 requests`,
    });
  } catch (error) {
    checks.push({
      check: 'round trip',
      status: 'fail',
      detail: `the kernel stopped answering (${failure(error)})`,
      fix: 'check the kernel (its log)',
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
      fix: `put ${BINARIES[agent]} on PATH (doctor runs it to read its version)`,
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
        fix: `run ${supported.prefix}${supported.min} or a later ${supported.prefix}x, or measure this one (docs/agents.md, "Fail closed")`,
      };
}

/** The kernel the hooks' configuration names (what the kernel checks checked), or null when it names none. */
function mainKernel(
  path: string,
  env: NodeJS.ProcessEnv,
): { path: string; url: string; token: string } | null {
  try {
    return { path, ...readHookConfig(path, env) };
  } catch {
    return null;
  }
}

/**
 * Checks the whole path and says what to fix: the hooks' configuration,
 * the kernel reachable, the credential valid and of the agent plane, a
 * profile declared (whose project_root holds the directory the agent runs
 * in), the hooks registered with their fail-closed settings,
 * nothing an administrator set turning them off, the agent version
 * measured, and the round trip's latency.
 */
export async function doctor(options: DoctorOptions): Promise<DoctorCheck[]> {
  const env = options.env ?? process.env;
  const configPath = options.configPath ?? defaultConfigPath(env);
  const directory =
    options.workingDirectory ??
    (options.scope.kind === 'project' ? resolve(options.scope.dir) : process.cwd());
  const checks = await kernelChecks(configPath, env, directory, options.agents).catch(
    (error: unknown): DoctorCheck[] => [
      {
        check: 'kernel reachable',
        status: 'fail',
        detail: `could not check the kernel: ${(error as Error).message}`,
        fix: 'check "url" in the hooks configuration and the kernel (its log)',
      },
    ],
  );
  for (const agent of options.agents) {
    try {
      checks.push(...settingsChecks(agent, options.scope, env));
    } catch (error) {
      // settingsChecks reads what it cannot trust defensively; this is the last net.
      checks.push({
        check: `${agent} hooks`,
        status: 'fail',
        detail: `could not check: ${(error as Error).message}`,
        fix: `airlock hooks install ${agent}`,
      });
    }
    if (agent === 'codex') checks.push(...codexManagedChecks(options.codexManagedDir));
    if (agent === 'claude-code') checks.push(...claudeManagedChecks(options.claudeManagedDir));
    const trust = agent === 'gemini' ? geminiFolderTrust(options.scope, env) : null;
    if (trust) checks.push(trust);
    checks.push(
      ...(await entryKernelChecks(
        agent,
        entryKernels(agent, options.scope, env),
        mainKernel(configPath, env),
      )),
    );
    checks.push(versionCheck(agent, options.binaries?.[agent]));
  }
  return checks;
}
