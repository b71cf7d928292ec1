import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codexConfigProblem } from './codex-toml.js';
import { codexHome, installCodex } from './test-home.js';

/**
 * Hooks declared under a key spelled otherwise than `hooks`, which TOML reads as `hooks`: a
 * unicode escape in a quoted key, a quoted part of a dotted key. Install must refuse them as it
 * refuses `[[hooks.Stop]]`: its own `[[hooks.EVENT]]` tables would clash with them (a file
 * Codex cannot read) or sit beside hooks Airlock does not know.
 */

/** The top-level keys a TOML file holds, as Python's own TOML reader (tomllib) reads it. */
function topLevelKeys(text: string): string[] | null {
  const read = spawnSync(
    'python3',
    ['-c', 'import sys, tomllib, json; print(json.dumps(sorted(tomllib.loads(sys.stdin.read()))))'],
    { encoding: 'utf8', input: text },
  );
  return read.status === 0 ? (JSON.parse(read.stdout) as string[]) : null;
}

const hasTomllib =
  spawnSync('python3', ['-c', 'import tomllib'], { encoding: 'utf8' }).status === 0;

describe("Codex's config.toml: hooks under a key spelled otherwise", () => {
  it.each([
    ['a unicode escape in an array of tables', '[["hook\\u0073".Stop]]\ncommand = "x"\n'],
    ['an escaped table name', '["\\u0068ooks"]\n'],
    ['a long unicode escape in a dotted key', 'model = "o3"\n"hook\\U00000073".Stop = []\n'],
    ['a literal quoted part', '[ \'hooks\' . PreToolUse ]\nmatcher = "shell"\n'],
    ['an escaped quoted key set to an inline table', '"ho\\u006Fks" = { Stop = [] }\n'],
  ])('%s: install refuses, nothing written', (_, config) => {
    // Read by TOML, the file does declare hooks.
    if (hasTomllib) expect(topLevelKeys(config)).toContain('hooks');
    expect(codexConfigProblem(config)).toContain('declares hooks');
    const { path, env } = codexHome(config, 'codex-keys');
    expect(() => installCodex(env)).toThrow('declares hooks');
    expect(readFileSync(path, 'utf8')).toBe(config);
  });

  it('a table name it cannot read is refused as not TOML; other escaped names are installed beside', () => {
    expect(codexConfigProblem('["hook\\q"]\n')).toContain('names a table that cannot be read');
    for (const config of [
      '[profiles."fast\\u0021"]\nmodel = "o3"\n',
      '["hooks2"]\n',
      '[features]\n"hook\\u0073" = true\n',
      'hooksmith = 1\n',
    ]) {
      if (hasTomllib) expect(topLevelKeys(config)).not.toContain('hooks');
      expect(codexConfigProblem(config)).toBeNull();
    }
  });
});
