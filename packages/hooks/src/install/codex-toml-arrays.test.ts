import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codexConfigProblem } from './codex-toml.js';

const install = installCodex;
const codexHomeOf = (config: string) => codexHome(config, 'codex-arrays');

/** The hook events a TOML file declares, as Python's own TOML reader (tomllib) reads it; throws when it is not TOML. */
function hookEventsOf(path: string): string[] {
  const read = spawnSync(
    'python3',
    [
      '-c',
      'import sys, tomllib, json; print(json.dumps(sorted(tomllib.load(open(sys.argv[1], "rb")).get("hooks", {}))))',
      path,
    ],
    { encoding: 'utf8' },
  );
  if (read.status !== 0) throw new Error(read.stderr);
  return JSON.parse(read.stdout) as string[];
}

const hasTomllib =
  spawnSync('python3', ['-c', 'import tomllib'], { encoding: 'utf8' }).status === 0;

import { codexHome, installCodex } from './test-home.js';

describe("Codex's config.toml: arrays that span lines", () => {
  it.each([
    ['nested arrays', 'matrix = [\n  [1, 2],\n  [3, 4],\n]\nmodel = "o3"\n'],
    ['a nested array without a trailing comma', 'matrix = [\n  [1, 2]\n]\n[profiles.fast]\n'],
    [
      'an array with a comment and a multi-line string holding brackets',
      'notes = [ # a bracket in a comment: ]\n  """\n[hooks]\n""",\n  ["x"],\n]\n',
    ],
    ['an inline table in an array', 'servers = [\n  { name = "a", args = ["--x"] },\n]\n'],
  ])('%s: install adds its block and the file is still TOML Codex reads', (_, config) => {
    const { path, env } = codexHomeOf(config);
    expect(codexConfigProblem(config)).toBeNull();
    install(env);
    const written = readFileSync(path, 'utf8');
    expect(written.startsWith(config.replace(/\n+$/, ''))).toBe(true);
    if (hasTomllib) {
      expect(hookEventsOf(path)).toEqual([
        'PostToolUse',
        'PreToolUse',
        'SessionStart',
        'Stop',
        'UserPromptSubmit',
      ]);
    }
  });

  it('a top-level hooks key after a nested array is still found: install refuses, nothing written', () => {
    const config = 'matrix = [\n  [1, 2]\n]\nhooks.Stop = []\n';
    const { path, env } = codexHomeOf(config);
    expect(() => install(env)).toThrow('line 4 (hooks.Stop = []) declares hooks');
    expect(readFileSync(path, 'utf8')).toBe(config);
  });

  it.each([
    [
      'an array never closed',
      'matrix = [\n  [1, 2],\n',
      'an array or inline table is never closed',
    ],
    ['a bracket closed twice', 'matrix = [1, 2]]\n', 'line 1 (matrix = [1, 2]]) closes a bracket'],
  ])('%s: not TOML, refused', (_, config, why) => {
    expect(codexConfigProblem(config)).toContain(why);
  });
});
