import { basename } from 'node:path';
import { HOOKED_AGENTS } from '@airlock/core';

/**
 * Splits a POSIX shell command into its words: bare words, '…' and "…"
 * quoting, backslash escapes. Answers null for what it does not read
 * (expansions, operators, an unterminated quote): such a command is not one
 * `install` wrote.
 */
export function shellWords(command: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < command.length; i += 1) {
    const char = command[i] as string;
    if (char === ' ' || char === '\t') {
      if (word !== null) words.push(word);
      word = null;
      continue;
    }
    if (char === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return null;
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
      continue;
    }
    if (char === '"') {
      let text = '';
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j += 1) {
        if (command[j] === '\\' && '"\\$`'.includes(command[j + 1] ?? '')) j += 1;
        else if ('$`'.includes(command[j] as string)) return null;
        text += command[j];
      }
      if (j >= command.length) return null;
      word = (word ?? '') + text;
      i = j;
      continue;
    }
    if (char === '\\') {
      if (i + 1 >= command.length) return null;
      word = (word ?? '') + command[i + 1];
      i += 1;
      continue;
    }
    if (/[|&;<>()$`\n]/.test(char)) return null;
    word = (word ?? '') + char;
  }
  if (word !== null) words.push(word);
  return words;
}

/** A hook command `install` wrote, read back: the program it starts and the script it runs. */
export interface AirlockCommand {
  /** `node`: the Node.js entry; `shell`: `airlock-hook.sh` or `airlock-hook.bash`. */
  client: 'node' | 'shell';
  /** The program the command starts: the Node.js binary, `sh` or `bash` (absent for a bare `airlock-hook`). */
  program: string | null;
  /** Airlock's script: `…/airlock-hook.js`, `…/airlock-hook.sh|bash`, or the `airlock-hook` bin. */
  script: string;
  /** A shell client's curl config (`…/hooks-AGENT.curl`): its kernel URL and credential. */
  config?: string | undefined;
  /** The Node.js client's `--config FILE` (the hooks' configuration it reads), when given. */
  hooksConfig?: string | undefined;
  /**
   * The agent whose hook events the command answers: the Node.js client's agent word, the agent a
   * shell client's curl config is named for (`hooks-AGENT.curl`, posting to that agent's endpoint).
   */
  agent: string;
}

const NODE_ENTRIES = new Set(['airlock-hook.js', 'airlock-hook']);
const NODE_FLAGS_WITH_VALUE = new Set(['--config', '--wait-ms']);
const NODE_FLAGS = new Set(['--defer', '--no-ask']);

function nodeCommand(words: string[]): AirlockCommand | null {
  const at = NODE_ENTRIES.has(basename(words[0] ?? '')) ? 0 : 1;
  const script = words[at];
  if (script === undefined || !NODE_ENTRIES.has(basename(script))) return null;
  if (!(HOOKED_AGENTS as readonly string[]).includes(words[at + 1] ?? '')) return null;
  let hooksConfig: string | undefined;
  for (let i = at + 2; i < words.length; i += 1) {
    const word = words[i] as string;
    if (NODE_FLAGS_WITH_VALUE.has(word) && words[i + 1] !== undefined) {
      if (word === '--config') hooksConfig = words[i + 1];
      i += 1;
    } else if (!NODE_FLAGS.has(word)) return null;
  }
  return {
    client: 'node',
    program: at === 1 ? (words[0] as string) : null,
    script,
    agent: words[at + 1] as string,
    ...(hooksConfig === undefined ? {} : { hooksConfig }),
  };
}

function shellCommand(words: string[]): AirlockCommand | null {
  const [program, script, config] = words;
  if (words.length !== 3 || program === undefined || script === undefined) return null;
  if (!/^(?:.*\/)?(?:sh|bash)$/.test(program)) return null;
  if (!/^airlock-hook\.(?:sh|bash)$/.test(basename(script))) return null;
  const named = /^hooks-([a-z-]+)\.curl$/.exec(basename(config ?? ''));
  if (named === null) return null;
  return { client: 'shell', program, script, config, agent: named[1] as string };
}

/**
 * The ending of a pre-tool command for an agent with no setting that makes a failed hook block
 * (Codex, Gemini CLI): a hook that cannot start exits 127, which they read as "run the call";
 * `|| exit 2` turns it into their refusal. The client itself exits 0 or 2.
 */
export const EXIT_BLOCKS = ' || exit 2';

/**
 * Reads a hook command as one `install` writes (`NODE …/airlock-hook.js AGENT
 * --config FILE [--wait-ms N] [--defer]`, or `sh|bash …/airlock-hook.sh|bash
 * …/hooks-AGENT.curl`, either ending `|| exit 2`), whichever paths an earlier install used. Answers null
 * for any other command, also one that merely mentions `airlock-hook`.
 */
export function airlockCommandOf(command: unknown): AirlockCommand | null {
  if (typeof command !== 'string') return null;
  const words = shellWords(
    command.endsWith(EXIT_BLOCKS) ? command.slice(0, -EXIT_BLOCKS.length) : command,
  );
  if (words === null || words.length === 0) return null;
  return nodeCommand(words) ?? shellCommand(words);
}
