import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyShellCommand } from './action-tags.js';
import { readCorpus } from './corpus/read-corpus.js';
import { ACTION_TAGS, type ActionTag } from './tags.js';

const commands = readCorpus().map((entry) => entry.command);

/** The wrappings an agent (or an attacker) puts around a command. */
const WRAPPINGS: Record<string, (command: string) => string> = {
  sudo: (command) => `sudo ${command}`,
  env: (command) => `env A=1 ${command}`,
  timeout: (command) => `timeout 5 ${command}`,
  'bash -c': (command) => `bash -c '${command.replaceAll("'", `'\\''`)}'`,
  // The newline closes a here-document or a comment inside before the parenthesis.
  '$( )': (command) => `$(${command}\n)`,
};

/** Wrappers that run a program: `sudo case ...` runs no case clause, it is a syntax error. */
const PROGRAM_WRAPPINGS = new Set(['sudo', 'env', 'timeout']);

/**
 * The tags `wrapped` must keep of `command`'s: all of them, but `read` when
 * the innermost wrapping is a program wrapper around a `case` clause (bash
 * refuses that line; a line that cannot be read is never read-only). Inside
 * `bash -c` only bash runs the command, so the tags of its bash reading.
 */
function keptTags(command: string, names: readonly string[]): ActionTag[] {
  const bash = names.includes('bash -c');
  const tags = classifyShellCommand(command, bash ? { shell: 'bash' } : {});
  const refused = PROGRAM_WRAPPINGS.has(names[0]!) && /^case\s/.test(command);
  return refused ? tags.filter((tag) => tag !== 'read') : tags;
}

const commandArbitrary = fc
  .tuple(
    fc.array(fc.constantFrom(...commands), { minLength: 1, maxLength: 3 }),
    fc.constantFrom(' && ', '; ', ' | ', ' || ', '\n'),
  )
  .map(([parts, separator]) => parts.join(separator));

describe('wrapping a command never loses a tag', () => {
  it.each(Object.keys(WRAPPINGS))('%s around every corpus command', (name) => {
    const wrap = WRAPPINGS[name]!;
    const lost = commands.flatMap((command) => {
      const wrapped = classifyShellCommand(wrap(command));
      const missing = keptTags(command, [name]).filter((tag) => !wrapped.includes(tag));
      return missing.length === 0 ? [] : [`${JSON.stringify(command)} lost ${missing.join(',')}`];
    });
    expect(lost).toEqual([]);
  });

  it('holds for compound commands under nested wrappings', () => {
    fc.assert(
      fc.property(
        commandArbitrary,
        fc.array(fc.constantFrom(...Object.keys(WRAPPINGS)), { minLength: 1, maxLength: 3 }),
        (command, names) => {
          const wrapped = names.reduce((text, name) => WRAPPINGS[name]!(text), command);
          const tags = classifyShellCommand(wrapped);
          for (const tag of keptTags(command, names)) expect(tags).toContain(tag);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('any text at all', () => {
  const shellish = fc
    .array(
      fc.constantFrom(
        ...['$(', ')', '(', '`', "'", '"', '\\', '$((', '${', '}', '<<', '<<<', 'EOF', '\n', ';'],
        ...[
          '&&',
          '|',
          '&',
          '>',
          '2>&1',
          ' ',
          'sudo ',
          'bash -c ',
          'rm -rf x',
          'npm i y',
          '#',
          "$'",
        ],
        ...['\\x72', 'find . -exec ', '{}', '\\;', 'xargs ', 'env A=1 ', 'eval ', 'python -m '],
        ...[
          'function ',
          'coproc ',
          '$IFS',
          'IFS',
          '[',
          ']',
          '@P',
          'a=(',
          'runuser -u r ',
          'env -S',
        ],
      ),
      { maxLength: 40 },
    )
    .map((parts) => parts.join(''));

  it('classifies without throwing into at least one known tag, in canonical order', () => {
    fc.assert(
      fc.property(fc.oneof(shellish, fc.string({ maxLength: 200 })), (command) => {
        const tags = classifyShellCommand(command);
        expect(tags.length).toBeGreaterThan(0);
        expect(tags).toEqual(ACTION_TAGS.filter((tag) => tags.includes(tag)));
      }),
      { numRuns: 2000 },
    );
  });
});
