import { setTimeout as delay } from 'node:timers/promises';
import { isValidationError, ValidationError } from '@airlock/sdk';
import { hasErrorCode, type KernelApi, kernelApis } from './kernel-api.js';
import { NAME_SEPARATOR, type ToolManifestEntry } from './manifest.js';

/**
 * Whether registration also writes the profile's `tool_manifest` (spec 003):
 * the kernel then checks each call's input against the tool's schema and the
 * selected permission rule set reads its risk traits.
 */
export const REGISTER_TOOL_MANIFEST = true;

/** A profile configuration as `GET/PUT /agent_api/v1/profile/configuration` carries it. */
export type ProfileConfiguration = Record<string, unknown>;

function ownedBy(serverName: string, name: string): boolean {
  return name.startsWith(`${serverName}${NAME_SEPARATOR}`);
}

/**
 * Whether a manifest of the bridge's tools would be the profile's first while
 * it selects a permission rule set: Baseline then asks a person about every
 * tool the manifest does not declare, so the agent's other tools (its shell,
 * its editor) would all start to park. Such a profile is left without one.
 */
function manifestWouldHideOtherTools(configuration: ProfileConfiguration): boolean {
  return (
    !Array.isArray(configuration.tool_manifest) && configuration.permission_rule_set !== undefined
  );
}

/**
 * The profile configuration with one MCP server's tools registered: its
 * earlier `<server>__*` names replaced by the current ones in `tool_names`
 * (a profile that declares no `tool_names` already allows every tool and is
 * left so), and, while {@link REGISTER_TOOL_MANIFEST} is on, the same for the
 * `tool_manifest` entries (a profile that selects a permission rule set
 * without declaring a manifest is left without one: see
 * {@link manifestWouldHideOtherTools}). Returns null when nothing changes. Pure.
 */
export function registerServerTools(
  configuration: ProfileConfiguration,
  serverName: string,
  entries: readonly ToolManifestEntry[],
  options: { manifest?: boolean } = {},
): ProfileConfiguration | null {
  const next: ProfileConfiguration = { ...configuration };
  const names = entries.map((entry) => entry.name);
  if (Array.isArray(configuration.tool_names)) {
    const kept = (configuration.tool_names as string[]).filter((n) => !ownedBy(serverName, n));
    next.tool_names = [...kept, ...names];
  }
  const manifest =
    options.manifest ?? (REGISTER_TOOL_MANIFEST && !manifestWouldHideOtherTools(configuration));
  if (manifest) {
    const current = Array.isArray(configuration.tool_manifest)
      ? (configuration.tool_manifest as { name: string }[])
      : [];
    next.tool_manifest = [...current.filter((e) => !ownedBy(serverName, e.name)), ...entries];
  }
  return JSON.stringify(next) === JSON.stringify(configuration) ? null : next;
}

/** A problem of a refused declaration, as the kernel lists it. */
export interface DeclarationProblem {
  code: string;
  pointer: string;
  message: string;
}

/**
 * The problems of a refused registration, each one that points into a tool
 * (`/tool_manifest/3/input_schema`, `/tool_names/2`) with that tool's name
 * at the head of its message, so the operator reads which tool is refused,
 * not only its place in the list. Pure.
 */
export function problemsNamingTools(
  configuration: ProfileConfiguration,
  problems: readonly DeclarationProblem[],
): DeclarationProblem[] {
  return problems.map((problem) => {
    const match = /^\/(tool_manifest|tool_names)\/(\d+)(?:\/|$)/.exec(problem.pointer);
    if (!match) return problem;
    const list = configuration[match[1] as string];
    const entry = Array.isArray(list) ? list[Number(match[2])] : undefined;
    const name =
      typeof entry === 'string' ? entry : (entry as { name?: unknown } | undefined)?.name;
    return typeof name === 'string'
      ? { ...problem, message: `tool ${name}: ${problem.message}` }
      : problem;
  });
}

/** What registering a bridge's tools in the agent's profile did. */
export type Registration = 'not_asked' | 'registered' | 'unchanged' | 'no_profile';

/** What {@link registerTools} did. */
export interface RegistrationResult {
  registration: Registration;
  /** The profile version it made, or null when it made none. */
  version: number | null;
  /**
   * True when the profile selects a permission rule set and declares no
   * manifest, so the tools' manifest entries were not written (see
   * `registerServerTools`).
   */
  manifestLeftOut: boolean;
}

/**
 * How many times a registration reads the profile and writes it back when
 * another writer (another bridge of the same agent) keeps coming first. Each
 * refusal means another writer's write landed, so this many bridges starting
 * together all register (the last on its last attempt).
 */
export const REGISTRATION_ATTEMPTS = 16;

/** The longest pause before the first read again; the n-th waits up to n times as long. */
const RETRY_PAUSE_MS = 25;

/** Where the kernel is and the credentials a registration uses. */
export interface RegistrationOptions {
  url: string;
  /** Checked before the profile is touched: a bridge that cannot serve changes nothing. */
  executorToken: string;
  /** The agent whose profile gets the tools; none: nothing is registered (`not_asked`). */
  agentToken?: string | undefined;
  /**
   * The workspace of both credentials, when known: each is then read in it.
   * With or without it, the agent credential must be of the executor
   * credential's application (see {@link checkOneApplication}).
   */
  workspaceId?: string | undefined;
  timeoutMs?: number | undefined;
}

/**
 * Checks that the agent credential is of the application the executor
 * credential serves: otherwise the tools would be registered in one
 * application's profile while the calls of another are served with them.
 * An executor of no application (one that serves every application of the
 * workspace) is refused too: it would serve every other application's calls
 * of these tools. Without a workspace id each credential is read in its own
 * workspace: an application is of one workspace, so one application id means
 * one workspace too.
 * @throws Error naming both applications; the SDK's UnauthorizedError or
 *   ForbiddenError when the kernel refuses either credential (another
 *   workspace's among them).
 */
export async function checkOneApplication(executor: KernelApi, agent: KernelApi): Promise<void> {
  const whoIs = (api: KernelApi, which: string) =>
    api.self().catch((error: unknown) => {
      // The kernel's "belongs to another workspace" alone does not say which credential.
      if (!hasErrorCode(error, 'forbidden')) throw error;
      // A kernel older than the bridge reads a credential only in a workspace named by its id.
      const hint = api.address.workspaceId ? '' : ' (give the workspace id: --workspace)';
      throw new Error(`the ${which} credential: ${error.detail}${hint}`, { cause: error });
    });
  const [served, declaring] = await Promise.all([
    whoIs(executor, 'executor'),
    whoIs(agent, 'agent'),
  ]);
  if (served.kind !== 'executor') {
    throw new Error(`the executor credential is a credential of kind ${served.kind}`);
  }
  if (declaring.kind !== 'agent') {
    throw new Error(`the agent credential is a credential of kind ${declaring.kind}`);
  }
  if (served.agent_application_id === declaring.agent_application_id) return;
  const executorSide =
    served.agent_application_id === null
      ? 'of no application (it serves every application of the workspace)'
      : `of application ${served.agent_application_id}`;
  throw new Error(
    `the agent credential is of application ${declaring.agent_application_id} and the executor credential ${executorSide}: the tools would be registered for one and serve the calls of another; give an executor credential of the agent's application`,
  );
}

/**
 * Registers the bridged servers' tools in the agent's profile (see
 * {@link registerServerTools}), one new version for all of them. It writes
 * with the version it read (`expected_version`), and when another writer
 * came first (`stale_digest`) it reads again and writes again, so two
 * bridges of one agent keep each other's tools.
 * @throws Error when the agent and executor credentials are of different
 *   applications (see {@link checkOneApplication});
 *   the SDK's UnauthorizedError or ForbiddenError when the kernel refuses the
 *   executor or the agent credential; its ValidationError, each problem
 *   naming its tool, when it refuses the new configuration; its
 *   ConflictError (`stale_digest`) when other writers came first
 *   {@link REGISTRATION_ATTEMPTS} times.
 */
export async function registerTools(
  options: RegistrationOptions,
  entriesByServer: Map<string, ToolManifestEntry[]>,
): Promise<RegistrationResult> {
  const done = (
    registration: Registration,
    version: number | null = null,
    stored?: ProfileConfiguration,
  ) => ({
    registration,
    version,
    manifestLeftOut: stored !== undefined && manifestWouldHideOtherTools(stored),
  });
  if (!options.agentToken) return done('not_asked');
  const kernelAs = kernelApis(options);
  const executor = kernelAs(options.executorToken);
  const api = kernelAs(options.agentToken);
  // A bridge that cannot serve (its executor credential refused) leaves the profile as it was.
  await executor.checkExecutor();
  await checkOneApplication(executor, api);
  for (let attempt = 1; ; attempt += 1) {
    const stored = await api.profileVersion();
    if (stored === null) return done('no_profile');
    const configuration = withServersTools(stored.configuration, entriesByServer);
    if (configuration === null) return done('unchanged', null, stored.configuration);
    try {
      const { version } = await api.putProfile({
        ...(configuration as typeof stored.configuration),
        expected_version: stored.version,
      });
      return done('registered', version, stored.configuration);
    } catch (error) {
      if (hasErrorCode(error, 'stale_digest') && attempt < REGISTRATION_ATTEMPTS) {
        // A random pause, longer each time: bridges that started together stop writing in step.
        await delay(Math.random() * RETRY_PAUSE_MS * attempt);
        continue;
      }
      if (!isValidationError(error) || error.problems.length === 0) throw error;
      // The kernel points at a tool by its index in what was sent: its name says which one.
      throw new ValidationError({
        code: error.code,
        detail: error.detail,
        status: error.status,
        problems: problemsNamingTools(configuration, error.problems),
        cause: error,
      });
    }
  }
}

/**
 * The stored configuration with every server's tools registered (only
 * `tool_names` and `tool_manifest` rewritten; the kernel checks it whole), or
 * null when nothing changes.
 */
function withServersTools(
  stored: ProfileConfiguration,
  entriesByServer: Map<string, ToolManifestEntry[]>,
): ProfileConfiguration | null {
  let configuration = stored;
  let changed = false;
  for (const [server, entries] of entriesByServer) {
    const next = registerServerTools(configuration, server, entries);
    if (next) {
      configuration = next;
      changed = true;
    }
  }
  return changed ? configuration : null;
}
