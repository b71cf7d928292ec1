import type { MatchedRule } from '@airlock/sdk';
import { shortened, visibleText } from '@airlock/sdk';

/** A short "3 min ago" for an epoch-ms time. */
export function ago(time: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - time) / 1000));
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} d ago`;
}

/** A short "in 23 h" for a future epoch-ms time. */
export function until(time: number, now = Date.now()): string {
  const minutes = Math.round((time - now) / 60_000);
  if (minutes <= 0) return 'now';
  if (minutes < 60) return `in ${minutes} min`;
  return `in ${Math.round(minutes / 60)} h`;
}

/**
 * "1 of 2 approvals": how far a parked call is toward the quorum the
 * approval policy asks, when it asks several or one was given; null when
 * one approval decides it and none was given yet.
 */
export function approvalsWords(received: number, required: number): string | null {
  if (required <= 1 && received === 0) return null;
  return `${received} of ${required} approvals`;
}

/** The keys an input names a shell command under, as the kernel's classifier reads them. */
export const COMMAND_KEYS = ['command', 'cmd', 'script', 'argv'] as const;

/**
 * Every command an input names, `[key, text]` in COMMAND_KEYS order: a tool may run any of them,
 * so a card shows them all, not the first alone.
 */
export function commandsOf(input: unknown): [string, string][] {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return [];
  const found: [string, string][] = [];
  for (const key of COMMAND_KEYS) {
    const value = (input as Record<string, unknown>)[key];
    if (typeof value === 'string') found.push([key, value]);
    else if (Array.isArray(value) && value.every((part) => typeof part === 'string')) {
      found.push([key, value.join(' ')]);
    }
  }
  return found;
}

/** A readable text for one input value: strings as they are, anything else as JSON. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2) ?? String(value);
}

/**
 * A value as a person reads it: strings as they are, nested values as
 * indented `key: value` lines, and a string of several lines as a block with
 * its real line breaks (never `\n` escapes).
 */
export function readableText(value: unknown, indent = ''): string {
  if (typeof value === 'string') {
    if (indent === '') return value;
    if (!value.includes('\n')) return JSON.stringify(value);
    return `|\n${value
      .split('\n')
      .map((line) => `${indent}${line}`)
      .join('\n')}`;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return value.map((item) => `\n${indent}- ${readableText(item, `${indent}  `)}`).join('');
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    return entries
      .map(([key, item]) => `\n${indent}${keyText(key)}: ${readableText(item, `${indent}  `)}`)
      .join('');
  }
  return JSON.stringify(value) ?? String(value);
}

/** A key as a nested view shows it: quoted when it is not a plain word, so it cannot forge a line. */
function keyText(key: string): string {
  return /^[\w.$@/-]+$/.test(key) ? key : JSON.stringify(key);
}

/**
 * The fields of a call's input, in order: `[key, text]`, or one `['input', text]` for a
 * non-object; hidden characters, long blank runs and empty lines shown as marks (visibleText).
 */
export function inputFields(input: unknown): [string, string][] {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    return Object.entries(input as Record<string, unknown>).map(([key, value]) => [
      visibleText(key),
      visibleText(readableText(value).replace(/^\n/, '')),
    ]);
  }
  return [['input', visibleText(readableText(input).replace(/^\n/, ''))]];
}

/** One matched rule as a sentence: `#1 ask bash when command matches "*rm -rf*"`. */
export function ruleText(match: MatchedRule): string {
  const rule = match.rule;
  const head = `#${match.index} ${match.verdict ?? rule?.verdict ?? '?'}`;
  if (!rule) return match.text === null ? head : `${head} (read "${match.text}")`;
  let text = `${head} ${rule.tool}`;
  if (rule.origin && rule.origin !== 'model') text += ` from ${rule.origin}`;
  if (rule.path) {
    text +=
      rule.match === undefined
        ? ` when ${rule.path} is set`
        : ` when ${rule.path} matches "${rule.match}"`;
  }
  if (rule.reason) text += `: ${rule.reason}`;
  return text;
}

/** Why a call parked when no rule says so: the mode's own word. */
export function parkedByMode(mode: string | null): string {
  return mode === 'ask'
    ? 'Parked by mode ask: no allow rule names this call.'
    : `Parked by mode ${mode ?? 'unknown'}.`;
}

/**
 * A short line for a row's call: the commands of a shell call, or its input as JSON; its
 * hidden characters, blank runs and line breaks shown as marks, and its end kept when cut.
 */
export function callLine(toolName: string, input: unknown, max = 120): string {
  const commands = commandsOf(input);
  const text =
    commands.length === 0
      ? valueText(input).replace(/\s+/g, ' ')
      : commands
          .map(([key, command], index) => (index === 0 ? command : `${key}: ${command}`))
          .join(' · ');
  // A line break shows as one: the rest of a command is on the same line, not hidden below.
  const line = `${visibleText(toolName)} ${visibleText(text).replace(/\n/g, ' ⏎ ')}`;
  return shortened(line, max);
}
