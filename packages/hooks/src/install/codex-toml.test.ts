import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BLOCK_END, codexConfigProblem } from './codex-toml.js';
import { doctor } from './doctor.js';
import { uninstallHooks } from './install.js';
import { codexHome, installCodex } from './test-home.js';

const install = installCodex;

describe("Codex's config.toml: hooks Airlock cannot add to", () => {
  it.each([
    ['an inline table', 'model = "o3"\nhooks = { enabled = true }\n', 'line 2 (hooks = '],
    ['a plain table', '[hooks.PreToolUse]\nmatcher = "shell"\n', 'line 1 ([hooks.PreToolUse])'],
    ['an array of tables', '[[hooks.Stop]]\n', 'line 1 ([[hooks.Stop]])'],
    ['a dotted key', 'hooks.Stop = []\n', 'line 1 (hooks.Stop = [])'],
    ['a quoted table name', '[ "hooks" . Stop ]\n', 'declares hooks'],
  ])(
    '%s: install refuses naming the line, nothing written; doctor fails',
    async (_, config, why) => {
      const { path, env } = codexHome(config);
      expect(() => install(env)).toThrow(why);
      expect(readFileSync(path, 'utf8')).toBe(config);
      const checks = await doctor({ agents: ['codex'], scope: { kind: 'user' }, env });
      expect(checks.find((check) => check.check === 'codex hooks')).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('declares hooks'),
      });
    },
  );

  it.each([
    ['a string left open', 'model = "o3\n', 'line 1 (model = "o3) has a string it does not close'],
    ['a table header left open', 'model = "o3"\n[broken\n', 'line 2 ([broken) opens a table'],
    [
      'a multi-line string never closed',
      "notes = '''\nhi\n",
      "a multi-line string (''') is never closed",
    ],
  ])('%s: not TOML, refused, nothing written', (_, config, why) => {
    const { path, env } = codexHome(config);
    expect(() => install(env)).toThrow(why);
    expect(readFileSync(path, 'utf8')).toBe(config);
  });

  it.each([
    ['a key in another table', '[profiles.fast]\nhooks = "none"\n'],
    ['a multi-line string', 'notes = """\n[hooks]\n"""\n'],
    ['a comment', '# [hooks] are installed by airlock\n'],
    [
      'strings with quotes and hashes',
      'a = "say \\"hi\\" # not a comment"\nb = \'it"s\' # note\n[t] # a table\n',
    ],
    ['a multi-line basic string', 'a = """\nline "one"\n"""\n'],
  ])('%s is not a hooks declaration', (_, config) => {
    expect(codexConfigProblem(config)).toBeNull();
  });

  it('a block whose end line is gone: install and uninstall refuse, the rest of the file stays', async () => {
    const { path, env } = codexHome('model = "o3"\n');
    install(env);
    const damaged = `${readFileSync(path, 'utf8').replace(`${BLOCK_END}\n`, '')}\n[mcp_servers.docs]\ncommand = "docs-mcp"\n`;
    writeFileSync(path, damaged);
    expect(() => uninstallHooks({ agent: 'codex', scope: { kind: 'user' }, env })).toThrow(
      `${path}: Airlock's block begins on line 3 but its end line`,
    );
    expect(() => install(env)).toThrow('its end line "# <<< airlock hooks" is missing');
    expect(readFileSync(path, 'utf8')).toBe(damaged);
    const checks = await doctor({ agents: ['codex'], scope: { kind: 'user' }, env });
    expect(checks.find((check) => check.check === 'codex hooks')?.status).toBe('fail');
  });
});
