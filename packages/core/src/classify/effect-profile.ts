import { z } from 'zod';
import type { ApprovalMode } from '../schemas/approval.js';
import { classifyShellCommand, MAX_CLASSIFIED_COMMAND_LENGTH } from './action-tags.js';
import { redirectionTargets, splitShellSegments } from './shell-segments.js';
import { ACTION_TAGS } from './tags.js';

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

/** Input keys read as a shell command line, and as file or URL targets. */
const COMMAND_KEYS = ['command', 'cmd', 'script'];
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

/**
 * The shell command a tool input carries (`command`, `cmd`, `script`, or an
 * `argv` array joined by spaces), or null when it carries none.
 */
export function shellCommandOf(input: unknown): string | null {
  for (const key of [...COMMAND_KEYS, 'argv']) {
    const value = stringAt(input, key);
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((part) => typeof part === 'string'))
      return value.join(' ');
  }
  return null;
}

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;
const PATH_LIKE = /^(~|\.{1,2})?\/|^[\w.-]+\/[\w./-]*|^[\w-]+\.[\w]+$/;

function shellTargets(command: string): string[] {
  // A command too long to classify is not split for targets either (same bound, same reason).
  if (command.length > MAX_CLASSIFIED_COMMAND_LENGTH) return [];
  const targets: string[] = [];
  for (const segment of splitShellSegments(command)) {
    for (const word of segment.slice(1)) {
      if (!word.startsWith('-') && (URL_LIKE.test(word) || PATH_LIKE.test(word)))
        targets.push(word);
    }
  }
  return [...targets, ...redirectionTargets(command)];
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
}

/**
 * Builds the effect profile frozen on a parked call: the resolved tool name,
 * its input, the mode and the rules that matched, and for a call carrying a
 * shell command the action tags of its commands; plus the canonical path and
 * URL targets found in the command or in the input's path-like fields.
 */
export function buildEffectProfile(options: EffectProfileOptions): EffectProfile {
  const command = shellCommandOf(options.toolInput);
  const targets = command === null ? [] : shellTargets(command);
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
    action_tags: command === null ? [] : classifyShellCommand(command),
    targets: [...new Set(targets.map(canonicalTarget))],
  };
}
