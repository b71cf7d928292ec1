import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runLocalCli } from '../testing/operator-cli.js';
import { parseFailureText, parseVerbCommandLine } from './command-line.js';

/** A token as `airlock serve` prints one (alk_<kind>_ then 43 characters). */
const TOKEN = 'alk_member_0Fq3nB8xVt2yKpR7wLcD9eHsJ4uMaZ6gXiN1oQ5rTbY';

/** What parseFailureText says of what Node's parseArgs refuses in `args`. */
function refusal(args: string[]): string {
  try {
    parseArgs({ args, options: { port: { type: 'string' } } });
  } catch (error) {
    return parseFailureText(error);
  }
  throw new Error(`parseArgs took ${JSON.stringify(args)}`);
}

// A token pasted where an argument goes was printed back whole, into scrollback and CI logs.
describe('what a command line says of the words Node refuses', () => {
  it.each([
    [
      [TOKEN],
      'unexpected argument (not repeated here: it may be a secret) (it takes no arguments)',
    ],
    [['extra'], 'unexpected argument "extra" (it takes no arguments)'],
    [[`--${TOKEN}`], 'unknown option (not repeated here: it may be a secret)'],
    [['--prot'], 'unknown option --prot'],
    [['--port'], '--port needs a value'],
  ])('%j: %s', (args, text) => {
    expect(refusal(args)).toBe(text);
  });

  it('holds back a token given as an argument too many to a verb', () => {
    const shape = {
      command: 'airlock runs',
      common: {},
      verbs: { show: { operands: ['<run-id>'] } },
    };
    expect(() => parseVerbCommandLine(['show', 'run_1', TOKEN], shape)).toThrow(
      'airlock runs show: unexpected argument (not repeated here: it may be a secret) (it takes <run-id>; see airlock runs --help)',
    );
  });

  it('airlock serve <a token> does not print it', { timeout: 60_000 }, async () => {
    const refused = await runLocalCli(['serve', TOKEN]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'airlock serve: unexpected argument (not repeated here: it may be a secret) (it takes no arguments) (see airlock serve --help)\n',
    );
  });
});
