import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OperatorError } from './operator/operator-error.js';
import { loadCommandPackage } from './optional-package.js';

const refusal = (loading: Promise<unknown>) =>
  loading.then(
    () => {
      throw new Error('loaded');
    },
    (error: unknown) => error,
  );

describe('a command package loaded when its command runs', () => {
  it('absent: a usage error saying to install it (exit 2)', async () => {
    const error = await refusal(
      loadCommandPackage('@airlock/not-installed/cli', '@airlock/not-installed', 'airlock x'),
    );
    expect(error).toBeInstanceOf(OperatorError);
    expect(error).toMatchObject({
      status: 2,
      message:
        'airlock x needs the @airlock/not-installed package next to @airlock/server (npm install @airlock/not-installed)',
    });
  });

  it('there but missing a dependency of its own: says so with Node\'s reason, not "install it" (exit 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'command-package-'));
    const entry = join(dir, 'cli.mjs');
    writeFileSync(
      entry,
      "import 'airlock-absent-dependency';\nexport const main = async () => 0;\n",
    );
    const error = await refusal(
      loadCommandPackage(pathToFileURL(entry).href, '@airlock/broken', 'airlock broken'),
    );
    expect(error).toBeInstanceOf(OperatorError);
    expect(error).toMatchObject({ status: 1 });
    const message = (error as Error).message;
    expect(message).toContain('airlock broken: @airlock/broken is installed but could not load:');
    expect(message).toContain("Cannot find package 'airlock-absent-dependency'");
    expect(message).not.toContain('npm install @airlock/broken');
  });

  it('its build absent: says it could not load (exit 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'command-package-'));
    const error = await refusal(
      loadCommandPackage(
        pathToFileURL(join(dir, 'dist', 'cli.js')).href,
        '@airlock/unbuilt',
        'airlock u',
      ),
    );
    expect(error).toMatchObject({ status: 1 });
    expect((error as Error).message).toContain('@airlock/unbuilt is installed but could not load');
  });

  it('a throw of its own while loading goes on as it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'command-package-'));
    const entry = join(dir, 'cli.mjs');
    writeFileSync(entry, "throw new TypeError('the package broke');\n");
    const error = await refusal(
      loadCommandPackage(pathToFileURL(entry).href, '@airlock/t', 'airlock t'),
    );
    expect(error).toBeInstanceOf(TypeError);
  });

  it('present: its commands', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'command-package-'));
    const entry = join(dir, 'cli.mjs');
    writeFileSync(entry, 'export const main = async (argv) => argv.length;\n');
    const loaded = await loadCommandPackage(pathToFileURL(entry).href, '@airlock/ok', 'airlock ok');
    expect(await loaded.main(['a', 'b'])).toBe(2);
  });
});
