import { describe, expect, it } from 'vitest';
import { runLocalCli } from '../testing/operator-cli.js';

/**
 * A mistyped flag is refused (exit 2) by a line that names the command as the person typed it
 * and where its flags are listed: `airlock gateway mcp --bogus` is not told about `airlock mcp`.
 */
describe('airlock <command> --bogus', { timeout: 180_000 }, () => {
  it.each([
    ['serve'],
    ['token'],
    ['tokens'],
    ['decisions'],
    ['approvals'],
    ['runs'],
    ['overlays'],
    ['apps'],
    ['audit'],
    ['retention'],
    ['notifications'],
    ['backup'],
    ['restore'],
    ['fence'],
    ['executor mcp'],
    ['gateway mcp'],
  ])('airlock %s names itself and its --help', async (command) => {
    const refused = await runLocalCli([...command.split(' '), '--bogus']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `airlock ${command}: unknown option --bogus (see airlock ${command} --help)\n`,
    );
  });

  it.each([
    [['--port'], '--port needs a value (see airlock serve --help)'],
    [['--port', '-1'], '--port takes a value that starts with a dash only as --port=VALUE'],
  ])('airlock serve %j says it in one line', async (flags, what) => {
    const refused = await runLocalCli(['serve', ...flags]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `airlock serve: ${what}${what.endsWith(')') ? '' : ' (see airlock serve --help)'}\n`,
    );
  });

  it.each([
    [['--port'], '--port needs a value'],
    [['--stdio', 'x'], 'unexpected argument "x"'],
  ])('airlock gateway mcp %j names itself', async (flags, what) => {
    const refused = await runLocalCli(['gateway', 'mcp', ...flags]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`^airlock gateway mcp: ${what}`));
  });
});
