import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { airlockCommandOf } from './command-shape.js';

/**
 * Why an Airlock hook command cannot start, or null: the program it runs
 * (the Node.js binary install pinned, `sh`, `bash`) must be an executable
 * file, Airlock's script must exist, and the configuration it names must be
 * named whole (the agent runs it in its own directory). A program that is gone makes the
 * hook exit 127, which Codex and Gemini CLI read as "run the call".
 */
export function commandProblem(command: unknown): string | null {
  const parsed = airlockCommandOf(command);
  if (parsed === null) return null;
  const program = parsed.program ?? parsed.script;
  if (!runnable(program)) {
    return `the program the hook runs, ${program}, is missing or not executable: the hook exits 127, and Codex and Gemini CLI then run the call`;
  }
  if (!isFile(parsed.script) && parsed.script.includes('/')) {
    return `the hook entry ${parsed.script} is missing`;
  }
  const named = parsed.config ?? parsed.hooksConfig;
  if (named !== undefined && !isAbsolute(named)) {
    return `the hook names its configuration ${named} relative to the directory it runs in, which is the agent's, not install's: every tool call is refused where it is not found; run airlock hooks install again`;
  }
  if (parsed.config !== undefined && !readable(parsed.config)) {
    return `the shell client's configuration ${parsed.config} is missing or unreadable: the hook refuses every tool call; run airlock hooks install again`;
  }
  // The sh client posts with curl (the bash one only for an https:// kernel).
  if (parsed.script.endsWith('.sh') && !runnable('curl')) {
    return 'curl is not on PATH: the sh hook client refuses every tool call without it';
  }
  return null;
}

/**
 * True of a shell client's command whose curl config an earlier install
 * wrote without the `# short-max-time` line: the client then holds the
 * session's start and the reports of what ran up to its full `max-time`
 * when the kernel does not answer, past the 30 s the agent gives them.
 */
export function lacksShortLimit(command: unknown): boolean {
  const parsed = airlockCommandOf(command);
  if (parsed?.config === undefined) return false;
  try {
    return !/^# short-max-time = \d+$/m.test(readFileSync(parsed.config, 'utf8'));
  } catch {
    // An unreadable config is commandProblem's to report.
    return false;
  }
}

function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return isFile(path);
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return isFile(path);
  } catch {
    return false;
  }
}

/**
 * Whether a program starts: a path must be an executable file, a bare name
 * be found on this shell's PATH (the agent's own PATH is not known here).
 */
function runnable(program: string): boolean {
  if (program.includes('/')) return executable(program);
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir.length > 0)
    .some((dir) => executable(join(dir, program)));
}
