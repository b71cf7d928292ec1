import { z } from 'zod';
import { pointerTokens } from '../issues/problem.js';
import type { ApprovalMode } from '../schemas/approval.js';
import {
  commandTags,
  MAX_CLASSIFIED_COMMAND_LENGTH,
  type SegmentsRead,
  UNREAD_COMMAND_TAGS,
} from './action-tags.js';
import { shellWalkTargets } from './segment-walker.js';
import { ACTION_TAGS, type ActionTag, orderedTags } from './tags.js';
import { argvLine } from './word-text.js';

export { argvLine };

/** What a person reads before approving a parked call. */
export const EffectProfileSchema = z.object({
  tool_name: z.string(),
  tool_input: z.unknown(),
  mode: z.enum(['bypass', 'ask', 'rules']),
  matched_rules: z.array(
    z.object({
      index: z.number().int(),
      verdict: z.enum(['allow', 'ask', 'deny']),
      text: z.string().nullable(),
    }),
  ),
  action_tags: z.array(z.enum(ACTION_TAGS)),
  targets: z.array(z.string()),
});
export type EffectProfile = z.infer<typeof EffectProfileSchema>;

/** Input keys read as a shell command line (a string, or an argv array), and as file or URL targets. */
const COMMAND_KEYS = ['command', 'cmd', 'script', 'argv'];
const TARGET_KEYS = [
  'path',
  'file_path',
  'filePath',
  'file',
  'url',
  'uri',
  'paths',
  'urls',
  'target',
  'cwd',
];

function stringAt(input: unknown, key: string): unknown {
  return input !== null && typeof input === 'object' && !Array.isArray(input)
    ? (input as Record<string, unknown>)[key]
    : undefined;
}

/** Every value a JSON pointer reaches (`*` walks each element of an array). */
function valuesAt(value: unknown, tokens: readonly string[], out: unknown[]): void {
  if (tokens.length === 0) {
    out.push(value);
    return;
  }
  const [token, ...rest] = tokens as [string, ...string[]];
  if (Array.isArray(value)) {
    if (token === '*') for (const element of value) valuesAt(element, rest, out);
    else if (/^(0|[1-9][0-9]*)$/.test(token)) valuesAt(value[Number(token)], rest, out);
  } else if (value !== null && typeof value === 'object' && Object.hasOwn(value, token)) {
    valuesAt((value as Record<string, unknown>)[token], rest, out);
  }
}

/** What a command field holds: its line, and whether its shape is one a command is written in. */
interface CommandField {
  readonly text: string | null;
  readonly wellFormed: boolean;
}

/**
 * The words of an argv array whose elements are not all strings, as an
 * executor that joins them would pass them: nested arrays flattened, other
 * scalars as their JSON text (`null`, `0`, `true`). Null when an element is
 * an object (no executor's join is predictable then).
 */
function looseWords(value: readonly unknown[], words: string[], depth = 0): string[] | null {
  for (const part of value) {
    if (typeof part === 'string') words.push(part);
    else if (Array.isArray(part) && depth < 8) {
      if (looseWords(part, words, depth + 1) === null) return null;
    } else if (part === null || typeof part === 'number' || typeof part === 'boolean') {
      words.push(JSON.stringify(part));
    } else return null;
  }
  return words;
}

/**
 * A command field's line: a string as given, an array of strings quoted back
 * into one line. Any other value (a number, an object, an array holding
 * another kind of element) is not how a command is written, so the call
 * carries `unknown` besides the tags of the words it does hold:
 * `["rm","-rf","/srv",null]` reads as `rm -rf /srv null`, destructive and
 * unknown, not as no command at all. A missing field, `null` and `[]` carry
 * no command.
 */
function commandField(value: unknown): CommandField | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return { text: value, wellFormed: true };
  if (Array.isArray(value)) {
    if (value.length === 0) return null;
    if (value.every((part) => typeof part === 'string')) {
      return { text: argvLine(value), wellFormed: true };
    }
    const words = looseWords(value, []);
    return { text: words && words.length > 0 ? argvLine(words) : null, wellFormed: false };
  }
  return { text: null, wellFormed: false };
}

/** The shell commands a tool input carries, and whether a command field held something else. */
export interface CarriedCommands {
  readonly commands: string[];
  /** A command field held a value no command is written as: its tags include `unknown`. */
  readonly malformed: boolean;
}

/**
 * Every shell command a tool input carries: its `command`, `cmd`, `script`
 * and `argv` fields (a string, or an array of words quoted back into one
 * line), then each field the tool's manifest marks as a command (JSON
 * pointers). All of them, not only the first present: an input may carry a
 * harmless `command` beside a destructive `cmd`. `patchFields` are top-level
 * fields holding a patch's text ({@link patchTextFields}), never read as commands.
 */
export function commandsCarried(
  input: unknown,
  commandPointers: readonly string[] = [],
  patchFields: readonly string[] = [],
): CarriedCommands {
  // A set, not a scan of the list: a manifest's `/list/*` may reach a hundred thousand commands.
  const commands = new Set<string>();
  let malformed = false;
  const take = (value: unknown) => {
    const field = commandField(value);
    if (field === null) return;
    if (!field.wellFormed) malformed = true;
    if (field.text !== null) commands.add(field.text);
  };
  for (const key of COMMAND_KEYS) if (!patchFields.includes(key)) take(stringAt(input, key));
  for (const pointer of commandPointers) {
    const values: unknown[] = [];
    valuesAt(input, pointerTokens(pointer), values);
    for (const value of values) take(value);
  }
  return { commands: [...commands], malformed };
}

/**
 * The top-level input fields a manifest entry declares as a patch's text (`names: patch`, Codex's
 * apply_patch `command`): the tool applies the patch, never runs it, so no reader takes that text
 * for a shell command (a README hunk quoting `rm -rf /` is no delete); the files the patch names
 * are the call's targets.
 */
export function patchTextFields(
  entry: { readonly targets?: readonly { pointer: string; names?: string }[] } | undefined,
): string[] {
  return (entry?.targets ?? [])
    .filter((target) => target.names === 'patch')
    .map((target) => pointerTokens(target.pointer))
    .flatMap((tokens) => (tokens.length === 1 ? tokens : []));
}

/** The shell commands of {@link commandsCarried}; empty when there is none. */
export function shellCommandsOf(input: unknown, commandPointers: readonly string[] = []): string[] {
  return commandsCarried(input, commandPointers).commands;
}

/** The tags of every command a tool input carries, as one set in canonical order. */
export function classifyCommands(commands: readonly string[]): ActionTag[] {
  return commandsTags(commands);
}

function commandsTags(commands: readonly string[], read?: SegmentsRead): ActionTag[] {
  if (commands.length === 1) return commandTags(commands[0]!, read);
  // The classifier's bound holds for a call, not only for each of its commands.
  if (totalLength(commands) > MAX_CLASSIFIED_COMMAND_LENGTH) return [...UNREAD_COMMAND_TAGS];
  return orderedTags(commands.flatMap((command) => commandTags(command, read)));
}

/**
 * The action tags of what a tool input carries: none without a command
 * field. `read` receives the segments of each command classified (a
 * contract's `command-prefix:` rules read them too: SimpleCommands.remember).
 */
export function carriedTags(carried: CarriedCommands, read?: SegmentsRead): ActionTag[] {
  const tags = carried.commands.length === 0 ? [] : commandsTags(carried.commands, read);
  if (!carried.malformed || tags.includes('unknown')) return tags;
  return orderedTags([...tags, 'unknown']);
}

function totalLength(commands: readonly string[]): number {
  return commands.reduce((sum, command) => sum + command.length, 0);
}

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;
/** A path: rooted, relative with a slash, a file name with an extension, or `~`, `.` and `..` alone. */
const PATH_LIKE = /^(~|\.{1,2})?\/|^[\w.-]+\/[\w./-]*|^[\w-]+\.[\w]+$|^(~|\.{1,2})$/;

/** The paths and URLs a command names, in the commands nested in it too (`bash -c 'rm -rf /etc'`). */
function shellTargets(command: string): string[] {
  // A command too long to classify is not read for targets either (same bound, same reason).
  if (command.length > MAX_CLASSIFIED_COMMAND_LENGTH) return [];
  const { words, namedOnly, listed, files } = shellWalkTargets(command);
  // A word a rule reads only as the path it names (`cd DIR`, `ls DIR`, `code FILE`) is a target too.
  const named = [...words, ...namedOnly, ...listed].filter(
    (word) => !word.startsWith('-') && (URL_LIKE.test(word) || PATH_LIKE.test(word)),
  );
  return [...named, ...files];
}

/** Removes `.` segments and resolves `..` lexically, keeping a leading `/`; URLs are kept as given. */
export function canonicalTarget(target: string): string {
  if (URL_LIKE.test(target)) return target;
  const absolute = target.startsWith('/');
  const parts: string[] = [];
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else if (part !== '..' || !absolute) parts.push(part);
  }
  const joined = parts.join('/');
  return absolute ? `/${joined}` : joined || '.';
}

/** Options for building an effect profile. */
export interface EffectProfileOptions {
  readonly toolName: string;
  readonly toolInput: unknown;
  readonly mode: ApprovalMode;
  readonly matchedRules: EffectProfile['matched_rules'];
  /** Input fields the tool's manifest marks as shell commands (JSON pointers), beside the usual keys. */
  readonly commandPointers?: readonly string[];
  /** Top-level fields holding a patch's text, not commands ({@link patchTextFields}). */
  readonly patchFields?: readonly string[];
}

/**
 * Builds the effect profile frozen on a parked call: the resolved tool name,
 * its input, the mode and the rules that matched, and for a call carrying a
 * shell command (in any command field) the action tags of all its commands; plus the canonical path and
 * URL targets found in the command or in the input's path-like fields.
 */
export function buildEffectProfile(options: EffectProfileOptions): EffectProfile {
  const carried = commandsCarried(options.toolInput, options.commandPointers, options.patchFields);
  const commands = carried.commands;
  const targets =
    totalLength(commands) > MAX_CLASSIFIED_COMMAND_LENGTH
      ? []
      : commands.flatMap((command) => shellTargets(command));
  for (const key of TARGET_KEYS) {
    const value = stringAt(options.toolInput, key);
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) if (typeof item === 'string' && item !== '') targets.push(item);
  }
  return {
    tool_name: options.toolName,
    tool_input: options.toolInput,
    mode: options.mode,
    matched_rules: [...options.matchedRules],
    action_tags: carriedTags(carried),
    targets: [...new Set(targets.map(canonicalTarget))],
  };
}
