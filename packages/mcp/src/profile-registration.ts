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
 * The profile configuration with one MCP server's tools registered: its
 * earlier `<server>__*` names replaced by the current ones in `tool_names`
 * (a profile that declares no `tool_names` already allows every tool and is
 * left so), and, while {@link REGISTER_TOOL_MANIFEST} is on, the same for the
 * `tool_manifest` entries. Returns null when nothing changes. Pure.
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
  if (options.manifest ?? REGISTER_TOOL_MANIFEST) {
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
