import type { HookedAgent, ToolManifest } from '@airlock/core';

const object = { type: 'object' };
/** A path that names a file, never a directory the tool reads through. */
const file = (pointer: string) => [{ pointer, kind: 'path' as const, names: 'file' as const }];
/**
 * A directory the tool prints the names of, never their content (a listing's root); absent,
 * the session's working directory.
 */
const listing = (pointer: string, pattern?: string) => [
  ...(pattern === undefined
    ? []
    : [{ pointer: pattern, kind: 'path' as const, names: 'listing' as const, under: pointer }]),
  {
    pointer,
    kind: 'path' as const,
    names: 'listing' as const,
    when_absent: 'working_directory' as const,
  },
];
/**
 * A search's root, a file or a directory (absent, the session's working directory), and the
 * fields of the glob over names and of ripgrep's file type it reads only the matches of, if it
 * takes them.
 */
const searchRoot = (pointer: string, nameFilter?: string, nameType?: string) => [
  {
    pointer,
    kind: 'path' as const,
    when_absent: 'working_directory' as const,
    ...(nameFilter === undefined ? {} : { name_filter: nameFilter }),
    ...(nameType === undefined ? {} : { name_type: nameType }),
  },
];
const url = (pointer: string) => [{ pointer, kind: 'url' as const }];

/**
 * Claude Code's built-in tools by their canonical hook names, with the risk
 * traits and targets an approver reads. MCP tools arrive as
 * `mcp__SERVER__TOOL` and are declared by their servers' manifests.
 */
const CLAUDE_CODE: ToolManifest = [
  { name: 'Bash', input_schema: object, risk_traits: ['execute'], execution: 'sequential' },
  { name: 'Read', input_schema: object, risk_traits: ['read'], targets: file('/file_path') },
  { name: 'Write', input_schema: object, risk_traits: ['write'], targets: file('/file_path') },
  { name: 'Edit', input_schema: object, risk_traits: ['write'], targets: file('/file_path') },
  { name: 'MultiEdit', input_schema: object, risk_traits: ['write'], targets: file('/file_path') },
  {
    name: 'NotebookEdit',
    input_schema: object,
    risk_traits: ['write'],
    targets: file('/notebook_path'),
  },
  {
    name: 'Glob',
    input_schema: object,
    risk_traits: ['read'],
    targets: listing('/path', '/pattern'),
  },
  // Older Claude Code lists a directory's names with LS; read as Glob given the same path.
  { name: 'LS', input_schema: object, risk_traits: ['read'], targets: listing('/path') },
  {
    name: 'Grep',
    input_schema: object,
    risk_traits: ['read'],
    targets: searchRoot('/path', '/glob', '/type'),
  },
  {
    name: 'WebFetch',
    input_schema: object,
    risk_traits: ['read', 'network'],
    targets: url('/url'),
  },
  { name: 'WebSearch', input_schema: object, risk_traits: ['network'] },
  { name: 'Task', input_schema: object, risk_traits: ['delegate'] },
  { name: 'TodoWrite', input_schema: object, risk_traits: ['plan_write'] },
  // Claude Code 2.1.332's own: its Monitor runs a shell command (or opens a WebSocket) and reads
  // each line it prints; Agent and Workflow start subagents, whose calls meet the hooks themselves.
  {
    name: 'Monitor',
    input_schema: object,
    risk_traits: ['execute', 'network'],
    commands: ['/command'],
    targets: url('/ws/url'),
  },
  { name: 'Agent', input_schema: object, risk_traits: ['delegate'] },
  { name: 'Workflow', input_schema: object, risk_traits: ['delegate'] },
  { name: 'SendMessage', input_schema: object, risk_traits: ['delegate'] },
  { name: 'CronCreate', input_schema: object, risk_traits: ['delegate'] },
  { name: 'Skill', input_schema: object, risk_traits: ['read'] },
  { name: 'EnterWorktree', input_schema: object, risk_traits: ['write'] },
  { name: 'ExitWorktree', input_schema: object, risk_traits: ['write', 'delete'] },
  { name: 'TaskStop', input_schema: object, risk_traits: ['execute'] },
  ...['ToolSearch', 'ListAgents', 'CronList'].map((name) => ({
    name,
    input_schema: object,
    risk_traits: ['read' as const],
  })),
  { name: 'ReportFindings', input_schema: object, risk_traits: ['interaction'] },
  { name: 'ScheduleWakeup', input_schema: object, risk_traits: ['plan_write'] },
  { name: 'CronDelete', input_schema: object, risk_traits: ['delegate'] },
  { name: 'DeferredToolPlaceholder', input_schema: object, risk_traits: [] },
];

/**
 * Codex reports its shell tool (`exec_command`) as `Bash` and file patches as
 * `apply_patch`. A patch adds, changes, deletes and renames files, naming them
 * inside its text (`*** Delete File:`, `*** Move to:`), which Codex's hooks
 * send as `command` (`input` in the Responses API's custom tool call).
 */
const CODEX: ToolManifest = [
  { name: 'Bash', input_schema: object, risk_traits: ['execute'], execution: 'sequential' },
  {
    name: 'apply_patch',
    input_schema: object,
    risk_traits: ['write', 'delete'],
    targets: [
      { pointer: '/command', kind: 'path', names: 'patch' },
      { pointer: '/input', kind: 'path', names: 'patch' },
    ],
  },
  // Codex 0.169 shows its model the image at `path`.
  { name: 'view_image', input_schema: object, risk_traits: ['read'], targets: file('/path') },
  { name: 'web_search', input_schema: object, risk_traits: ['network'] },
  { name: 'request_user_input', input_schema: object, risk_traits: ['interaction'] },
  { name: 'get_goal', input_schema: object, risk_traits: ['read'] },
  { name: 'create_goal', input_schema: object, risk_traits: ['plan_write'] },
  { name: 'update_goal', input_schema: object, risk_traits: ['plan_write'] },
];

/** Gemini CLI's built-in tools. */
const GEMINI: ToolManifest = [
  {
    name: 'run_shell_command',
    input_schema: object,
    risk_traits: ['execute'],
    execution: 'sequential',
  },
  { name: 'read_file', input_schema: object, risk_traits: ['read'], targets: file('/file_path') },
  {
    name: 'read_many_files',
    input_schema: object,
    risk_traits: ['read'],
    targets: [
      { pointer: '/paths', kind: 'path', names: 'glob' },
      { pointer: '/include', kind: 'path', names: 'glob' },
    ],
  },
  { name: 'write_file', input_schema: object, risk_traits: ['write'], targets: file('/file_path') },
  // Gemini CLI 0.61's replace edits, for a relative path naming no file, the one file below its
  // workspace directories whose path ends with it (correctPath).
  {
    name: 'replace',
    input_schema: object,
    risk_traits: ['write'],
    targets: [{ pointer: '/file_path', kind: 'path', names: 'file', when_missing: 'found_below' }],
  },
  {
    name: 'list_directory',
    input_schema: object,
    risk_traits: ['read'],
    targets: listing('/dir_path'),
  },
  {
    name: 'glob',
    input_schema: object,
    risk_traits: ['read'],
    targets: listing('/dir_path', '/pattern'),
  },
  {
    name: 'search_file_content',
    input_schema: object,
    risk_traits: ['read'],
    targets: searchRoot('/dir_path', '/include'),
  },
  // Gemini CLI 0.61 renamed search_file_content to grep_search (its glob field is include_pattern).
  {
    name: 'grep_search',
    input_schema: object,
    risk_traits: ['read'],
    targets: searchRoot('/dir_path', '/include_pattern'),
  },
  {
    name: 'web_fetch',
    input_schema: object,
    risk_traits: ['read', 'network'],
    targets: [{ pointer: '/prompt', kind: 'url', names: 'text' }],
  },
  { name: 'google_web_search', input_schema: object, risk_traits: ['network'] },
  { name: 'save_memory', input_schema: object, risk_traits: ['write'] },
  { name: 'read_background_output', input_schema: object, risk_traits: ['read'] },
  { name: 'invoke_agent', input_schema: object, risk_traits: ['delegate'] },
  { name: 'activate_skill', input_schema: object, risk_traits: ['read'] },
  { name: 'list_background_processes', input_schema: object, risk_traits: ['read'] },
  { name: 'update_topic', input_schema: object, risk_traits: ['plan_write'] },
  { name: 'enter_plan_mode', input_schema: object, risk_traits: ['plan_write'] },
];

/** The tool manifest shipped for each agent (its canonical hook tool names). */
export const TOOL_MANIFESTS: Readonly<Record<HookedAgent, ToolManifest>> = {
  'claude-code': CLAUDE_CODE,
  codex: CODEX,
  gemini: GEMINI,
};

/** The agent's shell tool, as its hooks name it. */
export const SHELL_TOOL: Readonly<Record<HookedAgent, string>> = {
  'claude-code': 'Bash',
  codex: 'Bash',
  gemini: 'run_shell_command',
};
