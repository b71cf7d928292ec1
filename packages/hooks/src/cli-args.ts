import { shownWord } from '@airlock/core/command-line';

/** A command-line mistake: the message and exit code 2. */
export class UsageError extends Error {}

/** What a verb accepts: flags that take a value, flags that do not, and `--project`'s optional one. */
export interface VerbFlags {
  values: readonly string[];
  switches: readonly string[];
}

/** The words after a verb, read strictly. */
export interface ParsedArgs {
  positionals: string[];
  values: Map<string, string>;
  switches: Set<string>;
  /** `--project` as given: absent, present without a folder (the current one), or with one. */
  project: { dir: string | null } | null;
}

/**
 * Reads a verb's words: every flag must be one the verb knows, given once;
 * `--project` takes an optional folder.
 * @throws UsageError naming the unknown, repeated or valueless flag.
 */
export function parseArgs(argv: readonly string[], flags: VerbFlags): ParsedArgs {
  const parsed: ParsedArgs = {
    positionals: [],
    values: new Map(),
    switches: new Set(),
    project: null,
  };
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i] as string;
    if (!word.startsWith('-') || word === '-') {
      parsed.positionals.push(word);
      continue;
    }
    if (seen.has(word)) throw new UsageError(`${shownWord(word)} is given twice`);
    seen.add(word);
    const next = argv[i + 1];
    if (word === '--project') {
      const hasDir = next !== undefined && !next.startsWith('-');
      parsed.project = { dir: hasDir ? next : null };
      if (hasDir) i += 1;
    } else if (flags.values.includes(word)) {
      if (next === undefined || next.startsWith('--'))
        throw new UsageError(`${word} needs a value`);
      parsed.values.set(word, next);
      i += 1;
    } else if (flags.switches.includes(word)) {
      parsed.switches.add(word);
    } else {
      throw new UsageError(`unknown option ${shownWord(word)}`);
    }
  }
  return parsed;
}
