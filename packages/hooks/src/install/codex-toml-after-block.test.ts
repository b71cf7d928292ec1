import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { doctor } from './doctor.js';
import { uninstallHooks } from './install.js';
import { codexHome, installCodex } from './test-home.js';

/**
 * A setting appended to Codex's config.toml after Airlock's block (`echo 'model = "o3"' >>
 * config.toml`): with no table header of its own, TOML reads it as a field of Airlock's last hook,
 * not the top-level model. Install moved it under the user's table before the block, where
 * `model` was already set: a file Codex cannot read. Install and uninstall now refuse, naming the
 * line, and doctor fails.
 */

/** Whether Python's own TOML reader (tomllib) reads the file. */
function readsAsToml(path: string): boolean {
  const read = spawnSync('python3', [
    '-c',
    'import sys, tomllib; tomllib.load(open(sys.argv[1], "rb"))',
    path,
  ]);
  return read.status === 0;
}

const hasTomllib =
  spawnSync('python3', ['-c', 'import tomllib'], { encoding: 'utf8' }).status === 0;

describe("Codex's config.toml: a setting appended after Airlock's block", () => {
  it('install and uninstall refuse naming the line, nothing written; doctor fails', async () => {
    const { path, env } = codexHome('[profiles.fast]\nmodel = "x"\n', 'codex-after-block');
    installCodex(env);
    appendFileSync(path, '\n# my model\nmodel = "o3"\n');
    const appended = readFileSync(path, 'utf8');
    const line = appended.split('\n').indexOf('model = "o3"') + 1;
    expect(() => installCodex(env)).toThrow(
      `line ${line} (model = "o3") follows Airlock's block with no table header of its own`,
    );
    expect(() => uninstallHooks({ agent: 'codex', scope: { kind: 'user' }, env })).toThrow(
      `line ${line} (model = "o3") follows Airlock's block`,
    );
    expect(readFileSync(path, 'utf8')).toBe(appended);
    if (hasTomllib) expect(readsAsToml(path)).toBe(true);
    const checks = await doctor({ agents: ['codex'], scope: { kind: 'user' }, env });
    expect(checks.find((check) => check.check === 'codex hooks')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining("follows Airlock's block"),
    });
  });

  it('a table of its own after the block is installed around as before', () => {
    const { path, env } = codexHome('model = "x"\n', 'codex-after-block');
    installCodex(env);
    appendFileSync(path, '\n[mcp_servers.docs]\ncommand = "docs-mcp"\n');
    installCodex(env);
    const written = readFileSync(path, 'utf8');
    expect(written).toContain('[mcp_servers.docs]\ncommand = "docs-mcp"');
    if (hasTomllib) expect(readsAsToml(path)).toBe(true);
  });
});
