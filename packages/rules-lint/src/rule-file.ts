import {
  type ApprovalMode,
  ApprovalModeSchema,
  manifestSchemaStaticProblems,
  type Policy,
  resolveToolName,
  validateProfileConfiguration,
  validateRuleList,
} from '@airlock/core';
import { catalogOfNames, mergeCatalogs, type ToolCatalog } from './catalog/tool-catalog.js';
import { type DeclarationProblem, policyTextProblems } from './policy-text.js';
import { requestGuardProblems } from './request-guard.js';

/**
 * Keys a rule file may carry beside a profile configuration: `$schema` for
 * editors and `examples` for `rules-lint test`. They are not sent to the
 * kernel, so they are taken out before validation.
 */
export const FILE_ONLY_KEYS = ['$schema', 'examples'] as const;

/** A rule file read as what the kernel would receive. */
export interface RuleFile {
  /** A bare rule list (a JSON array) or a profile configuration (an object). */
  readonly kind: 'rule-list' | 'profile';
  /** Pointer to the rule list: '' for a bare list, '/approval_rules' in a profile. */
  readonly rulesPointer: string;
  /** The rule list as written (not necessarily an array). */
  readonly rules: unknown;
  /** The profile's approval_mode when it is one of the three. */
  readonly mode: ApprovalMode | undefined;
  /** The profile's `tool_aliases` entries that map to text. */
  readonly toolAliases: Readonly<Record<string, string>>;
  /**
   * Tool names the profile makes known: `tool_names` resolved through aliases, hook tools, and
   * the `tool_manifest` tools with their input schemas.
   */
  readonly declaredTools: ToolCatalog | undefined;
  /** The profile's `tool_names` as written, when it is an array; a model may call no other tool. */
  readonly toolNames: readonly string[] | undefined;
  /** The `examples` value, if present. */
  readonly examples: unknown;
  /**
   * Declaration problems the kernel would report, each with a pointer into
   * the file: for a profile its request guard's (nesting, `__proto__` keys)
   * first, then its policy-text check's, core's validator's, and the static
   * check on `tool_manifest` input schemas.
   */
  readonly problems: readonly DeclarationProblem[];
  /** The compiled policy, when the kernel would accept the declaration. */
  readonly policy: Policy | undefined;
}

/** The mode the kernel runs a profile under when it declares no `approval_mode`. */
export const PROFILE_DEFAULT_MODE: ApprovalMode = 'ask';

/**
 * The mode a rule file's rules run under: a profile's `approval_mode`, else
 * `ask` (what the kernel gives a profile that declares none, whatever
 * `--mode` or a config says); a bare list's mode comes from outside the file
 * (`--mode`, the config's `mode`), so it is `listMode`, if any.
 */
export function runningMode(
  file: Pick<RuleFile, 'kind' | 'mode'>,
  listMode: ApprovalMode | undefined = file.mode,
): ApprovalMode | undefined {
  return file.kind === 'profile' ? (file.mode ?? PROFILE_DEFAULT_MODE) : listMode;
}

/** Interprets a parsed rule file and validates it with the kernel's own validator. */
export function readRuleFile(value: unknown): RuleFile {
  if (!isObject(value)) {
    const validated = validateRuleList(value);
    const problems = [...policyTextProblems(value), ...(validated.ok ? [] : validated.problems)];
    return {
      kind: 'rule-list',
      rulesPointer: '',
      rules: value,
      mode: undefined,
      toolAliases: {},
      declaredTools: undefined,
      toolNames: undefined,
      examples: undefined,
      problems,
      policy: validated.ok && problems.length === 0 ? validated.value : undefined,
    };
  }
  const declaration: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (!(FILE_ONLY_KEYS as readonly string[]).includes(key)) setOwn(declaration, key, field);
  }
  const validated = validateProfileConfiguration(declaration);
  const declared = [
    ...policyTextProblems(declaration),
    ...(validated.ok ? [] : validated.problems),
    // The kernel's check on tool input schemas, core's copy: its static part (compiling is the kernel's).
    ...manifestSchemaStaticProblems(declaration.tool_manifest),
  ];
  // The guard the kernel runs on the request first; a key core already calls unknown is said once.
  const unknownKeys = new Set(
    declared.filter((problem) => problem.code === 'unknown_key').map((problem) => problem.pointer),
  );
  const problems = [
    ...requestGuardProblems(declaration).filter(
      (problem) => problem.code !== 'unrecognized_keys' || !unknownKeys.has(problem.pointer),
    ),
    ...declared,
  ];
  const mode = ApprovalModeSchema.safeParse(value.approval_mode);
  return {
    kind: 'profile',
    rulesPointer: '/approval_rules',
    rules: value.approval_rules,
    mode: mode.success ? mode.data : undefined,
    toolAliases: isObject(value.tool_aliases) ? stringEntries(value.tool_aliases) : {},
    declaredTools: declaredTools(value),
    toolNames: Array.isArray(value.tool_names)
      ? value.tool_names.filter((name): name is string => typeof name === 'string')
      : undefined,
    examples: value.examples,
    problems,
    policy: validated.ok && problems.length === 0 ? validated.value.policy : undefined,
  };
}

function declaredTools(profile: Record<string, unknown>): ToolCatalog | undefined {
  const aliases = isObject(profile.tool_aliases) ? stringEntries(profile.tool_aliases) : {};
  const names: string[] = [];
  if (Array.isArray(profile.tool_names)) {
    for (const name of profile.tool_names)
      if (typeof name === 'string') names.push(resolveToolName(name, aliases));
  }
  if (isObject(profile.lifecycle_hooks)) {
    for (const hook of Object.values(profile.lifecycle_hooks)) {
      if (isObject(hook) && typeof hook.tool === 'string')
        names.push(resolveToolName(hook.tool, aliases));
    }
  }
  // The manifest's names are the resolved names the kernel looks its entries up by, so they are not resolved again.
  const manifest = manifestCatalog(profile.tool_manifest);
  if (names.length === 0) return manifest;
  return manifest === undefined
    ? catalogOfNames(names)
    : mergeCatalogs(manifest, catalogOfNames(names));
}

/** The tools of a profile's `tool_manifest` with their input schemas, or undefined when it declares none. */
function manifestCatalog(manifest: unknown): ToolCatalog | undefined {
  if (!Array.isArray(manifest)) return undefined;
  const names = new Set<string>();
  const schemas = new Map<string, unknown>();
  for (const entry of manifest) {
    if (!isObject(entry) || typeof entry.name !== 'string' || entry.name === '') continue;
    names.add(entry.name);
    if (isObject(entry.input_schema) && !schemas.has(entry.name))
      schemas.set(entry.name, entry.input_schema);
  }
  return names.size > 0 ? { names: [...names].sort(), schemas } : undefined;
}

function stringEntries(value: Record<string, unknown>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, field] of Object.entries(value))
    if (typeof field === 'string') setOwn(result, key, field);
  return result;
}

/**
 * Adds a key as data. A plain assignment of `"__proto__"` would replace the
 * prototype instead, hiding the key from the validator that the kernel
 * runs on the same JSON (JSON.parse keeps it as an own key).
 */
function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
