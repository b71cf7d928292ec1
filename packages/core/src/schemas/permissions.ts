import { z } from 'zod';
import { eachNameOnce } from './names-once.js';

/**
 * What a tool may do, as its manifest declares it (spec 003). The built-in
 * rule sets are written over these traits; docs/permissions.md has the table.
 */
export const RISK_TRAITS = [
  'read',
  'write',
  'delete',
  'destructive',
  'execute',
  'network',
  'interaction',
  'delegate',
  'plan_write',
] as const;
export const RiskTraitSchema = z.enum(RISK_TRAITS);
export type RiskTrait = z.infer<typeof RiskTraitSchema>;

/** The traits that change files: a call with one of them mutates its path targets. */
export const MUTATION_TRAITS: readonly RiskTrait[] = ['write', 'delete', 'destructive'];

/** One input field of a tool that names a path or URL, by JSON pointer; a `*` token walks every array element. */
export const ToolTargetSchema = z.strictObject({
  pointer: z
    .string()
    .regex(/^(\/[^/]*)*$/, 'a JSON pointer starts with "/" (e.g. /path or /edits/*/path)'),
  kind: z.enum(['path', 'url']),
  /**
   * For a path: what it names. `file`: always a file (a read tool's `file_path`), never a
   * directory it reads through; `directory`: a directory it may read through (a search's
   * root); `glob`: a glob the tool expands, reading every file it matches, never a matched
   * directory's content (Gemini's read_many_files, whose glob skips directories); a path in it
   * with no wildcard may be a directory it reads through; `listing`: a directory whose entries' names the tool prints, never their
   * content (Claude Code's LS and Glob), read as `ls` and `find` are: a rule names it only when it
   * is a guarded path itself (with no project root, an absolute one is read through); `patch`: the text of a Codex patch,
   * naming as files every path its `*** Add File:`, `*** Update File:`, `*** Delete File:` and
   * `*** Move to:` lines give. Absent: a file or a directory, judged by the path's text (a name
   * with an extension is a file). For a URL: `text`, prose holding the URLs the tool fetches
   * (Gemini CLI's web_fetch prompt), naming every `http://` or `https://` URL in it.
   */
  names: z.enum(['file', 'directory', 'glob', 'listing', 'patch', 'text']).optional(),
  /**
   * For a path: `working_directory` when the tool reads the call's working directory if the
   * field is absent (a search given no path); absent, a missing field names nothing.
   */
  when_absent: z.enum(['working_directory']).optional(),
  /**
   * For a path: `found_below` when the tool, finding no file at a relative path, looks below the
   * working directory for a file whose path ends with it and uses that (Gemini CLI's replace:
   * `key` may edit `secrets/key`); such a path is also read as that search's glob (`**` + `/*key`).
   */
  when_missing: z.enum(['found_below']).optional(),
  /**
   * For a path: `server_root` when the tool's server reads a relative path from a root of its own,
   * not the agent's working directory (an MCP server: the filesystem server's first allowed
   * directory, taken to be the project root); such a path is read from the project root as well
   * as from the working directory, the strictest verdict winning. A tool named `mcp__SERVER__TOOL`
   * (Claude Code's and Codex's name of an MCP server's tool) is read so without it.
   */
  relative_to: z.enum(['server_root']).optional(),
  /**
   * For a path: the JSON pointer of the input field naming the directory a relative path is read
   * from (Glob's `pattern` from its `path`); absent, or when that field is, the call's working
   * directory.
   */
  under: z
    .string()
    .regex(/^(\/[^/]*)*$/, 'a JSON pointer starts with "/" (e.g. /path)')
    .optional(),
  /**
   * For a search's path: the JSON pointer of the glob over file names it reads only the files
   * matching (Grep's `glob`, ripgrep's `--glob`): a file a rule guards that no such name can be is
   * not reached. Several globs (`*.ts *.tsx`, `*.ts,*.tsx`, `*.{ts,tsx}`) are read as each; a
   * negation, pathspec magic or a nested brace limits nothing.
   */
  name_filter: z
    .string()
    .regex(/^(\/[^/]*)*$/, 'a JSON pointer starts with "/" (e.g. /glob)')
    .optional(),
  /**
   * For a search's path: the JSON pointer of the ripgrep file type it reads only the files of
   * (Grep's `type`, ripgrep's `--type js`: `*.js`, `*.jsx`, ...), as ripgrep 14.1 defines its
   * common types; a type unknown to that table limits nothing, and a `name_filter` glob given
   * beside it decides alone, as ripgrep's `--glob` does.
   */
  name_type: z
    .string()
    .regex(/^(\/[^/]*)*$/, 'a JSON pointer starts with "/" (e.g. /type)')
    .optional(),
});
export type ToolTarget = z.infer<typeof ToolTargetSchema>;

/** One tool of a profile's manifest. */
export const ToolManifestEntrySchema = z.strictObject({
  name: z.string().min(1).max(200),
  description: z.string().max(4096).optional(),
  /** A JSON Schema object the call's input must satisfy before any rule is read. */
  input_schema: z.record(z.string(), z.unknown()),
  risk_traits: z.array(RiskTraitSchema),
  targets: z.array(ToolTargetSchema).optional(),
  /**
   * Input fields that carry a shell command (a string, or an argv array), by
   * JSON pointer; a `*` token walks every element of an array. The action
   * classifier reads them beside `command`, `cmd`, `script` and `argv`.
   */
  commands: z
    .array(
      z
        .string()
        .regex(/^(\/[^/]*)*$/, 'a JSON pointer starts with "/" (e.g. /run or /steps/*/run)'),
    )
    .max(32)
    .optional(),
  availability: z.enum(['available', 'unavailable']).optional(),
  execution: z.enum(['parallel', 'sequential']).optional(),
  group: z.string().min(1).max(200).optional(),
  /**
   * The tool may run twice on one call with no effect beyond the first run's (MCP's
   * `idempotentHint`): an executor's claim of it that lapsed runs again on the next executor,
   * as a read-only tool's does, instead of failing `outcome_unknown`.
   */
  idempotent: z.boolean().optional(),
});
export type ToolManifestEntry = z.infer<typeof ToolManifestEntrySchema>;

/** The tools a profile declares; names are unique. */
export const ToolManifestSchema = z
  .array(ToolManifestEntrySchema)
  .superRefine(eachNameOnce('the manifest declares'));
export type ToolManifest = z.infer<typeof ToolManifestSchema>;

/** The verdict of a permission rule; a typo is told in the words approval rules use. */
export const PermissionVerdictSchema = z.enum(['allow', 'ask', 'deny'], {
  error: (issue) =>
    `verdict must be allow, ask or deny, not ${
      typeof issue.input === 'string'
        ? `the text ${JSON.stringify(issue.input.slice(0, 40))}`
        : issue.input === undefined
          ? 'nothing'
          : JSON.stringify(issue.input)?.slice(0, 40)
    }`,
});
export type PermissionVerdict = z.infer<typeof PermissionVerdictSchema>;

const ruleFields = {
  /** Tool-name globs (`*` any run of bytes); any one matching selects the tool. */
  tools: z.array(z.string().min(1)).optional(),
  /** Exact tool names (no glob: `*` and `?` are themselves); any one equal selects the tool. */
  tool_names: z.array(z.string().min(1)).optional(),
  /** Manifest groups; any one equal to the tool's group selects it. */
  groups: z.array(z.string().min(1)).optional(),
  /** Risk traits; the rule applies when the tool has any one of them. */
  risks: z.array(RiskTraitSchema).optional(),
  /** Rooted POSIX patterns over canonical path targets (`src/**`; `**` crosses `/`, `*` and `?` do not). */
  targets: z.array(z.string().min(1)).optional(),
  /** Globs over canonical URL targets. */
  urls: z.array(z.string().min(1)).optional(),
  /** Exact argument values by JSON pointer into the validated input ('' is the whole input). */
  arguments: z.record(z.string(), z.unknown()).optional(),
  /** Globs over string arguments by JSON pointer. */
  argument_patterns: z.record(z.string(), z.string()).optional(),
  /**
   * The absolute directory the call is made in (a hooked agent's `cwd`; a call that says none
   * is made in the project root): the rule holds only for calls made there, since a call's
   * relative paths and shell words name other files elsewhere. Compared with `.`, `..`,
   * doubled and trailing slashes resolved.
   */
  working_directory: z
    .string()
    .regex(/^\//, 'must be an absolute POSIX path (it starts with "/")')
    .max(4096)
    .optional(),
  /** What the model (deny) or the person (ask) reads. */
  reason: z.string().max(1024).optional(),
};

/** One rule of a rule set or overlay group: every condition it states must hold. */
export const PermissionRuleSchema = z.strictObject({
  verdict: PermissionVerdictSchema,
  ...ruleFields,
  /** User scope only: a restriction no overlay and no rule set can lift. */
  guardrail: z.boolean().optional(),
});
export type PermissionRule = z.infer<typeof PermissionRuleSchema>;

/** A rule to remember on approval: the conditions only (it is stored as an allow rule). */
export const RememberRuleSchema = z.strictObject(ruleFields);
export type RememberRule = z.infer<typeof RememberRuleSchema>;

/** A custom ordered rule set an application declares. */
export const CustomRuleSetSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_.-]{0,99}$/, 'a rule set id is lowercase letters, digits, _ . -'),
  version: z.string().min(1).max(100).optional(),
  description: z.string().max(4096).optional(),
  disabled: z.boolean().optional(),
  /** The approval modes this set is written for; absent means every mode. */
  modes: z.array(z.enum(['bypass', 'ask', 'rules'])).optional(),
  rules: z.array(PermissionRuleSchema),
});
export type CustomRuleSet = z.infer<typeof CustomRuleSetSchema>;

/** The scopes of an overlay document. */
export const OverlayScopeSchema = z.enum(['user', 'project', 'conversation']);
export type OverlayScope = z.infer<typeof OverlayScopeSchema>;

/** One group of an overlay document: rules bound to exactly one rule set. */
export const OverlayGroupSchema = z.strictObject({
  ruleSetId: z.string().min(1).max(100),
  rules: z.array(PermissionRuleSchema),
});
export type OverlayGroup = z.infer<typeof OverlayGroupSchema>;

/** A whole overlay document of one scope: its groups, replaced atomically. */
export const OverlayDocumentSchema = z.array(OverlayGroupSchema).max(200);
export type OverlayDocument = z.infer<typeof OverlayDocumentSchema>;

/** `remember` on an approval: where to keep an allow rule for the captured rule set. */
export const RememberSchema = z.strictObject({
  scope: OverlayScopeSchema,
  /** The conditions; absent remembers exactly this call (its tool and whole input). */
  rule: RememberRuleSchema.optional(),
});
export type Remember = z.infer<typeof RememberSchema>;

/** The permission keys of a profile configuration (and of a standalone run's create call). */
export const PermissionConfigurationShape = {
  tool_manifest: ToolManifestSchema.optional(),
  /** `read_only`, `supervised`, `autonomous`, `planning` or a custom set's id. */
  permission_rule_set: z.string().min(1).max(100).optional(),
  /** Custom sets, checked when selected: a malformed one falls back to Baseline. */
  custom_rule_sets: z.array(z.unknown()).optional(),
  /** The absolute POSIX directory path targets are canonicalized against. */
  project_root: z
    .string()
    .regex(/^\//, 'must be an absolute POSIX path (it starts with "/")')
    .max(4096)
    .optional(),
};
