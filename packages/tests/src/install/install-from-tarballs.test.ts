import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportTargets, specifierOf } from './exports-map.js';
import {
  compiledBetterSqlite,
  npm,
  npmEnv,
  type PublicPackage,
  pack,
  publicPackages,
  undeclaredTypeImports,
} from './tarballs.js';

const run = promisify(execFile);
const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** A package.json that installs the given tarballs, each Airlock package from its tarball only. */
function manifest(
  tarballs: Map<string, string>,
  extra: { devDependencies?: Record<string, string>; overrides?: Record<string, string> } = {},
): string {
  const files = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]));
  return JSON.stringify(
    {
      name: 'stranger-app',
      private: true,
      type: 'module',
      dependencies: files,
      devDependencies: extra.devDependencies ?? {},
      overrides: { ...files, ...extra.overrides },
    },
    null,
    2,
  );
}

describe('packages a stranger can install', () => {
  let root: string;
  let tarballs: Map<string, string>;
  let packages: PublicPackage[];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'airlock-install-'));
    const destination = join(root, 'tarballs');
    mkdirSync(destination);
    packages = publicPackages();
    const packed = await Promise.all(packages.map((pkg) => pack(pkg, destination)));
    tarballs = new Map(packages.map((pkg, index) => [pkg.name, packed[index]!]));
  }, INSTALL_TIMEOUT_MS);

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('packs every public package, the inbox included (the server depends on it)', () => {
    expect([...tarballs.keys()].sort()).toEqual([
      '@airlock/core',
      '@airlock/hooks',
      '@airlock/inbox',
      '@airlock/mcp',
      '@airlock/rules-lint',
      '@airlock/sdk',
      '@airlock/server',
    ]);
  });

  it(
    'installs with npm outside the workspace; a strict app type-checks without skipLibCheck and runs against a real kernel',
    async () => {
      const app = join(root, 'app');
      cpSync(join(import.meta.dirname, 'fixtures', 'app'), app, { recursive: true });
      // The workspace's compiled better-sqlite3 (the same version) spares a native compile of
      // minutes; without one, npm compiles it as a stranger's install would.
      const compiled = compiledBetterSqlite();
      writeFileSync(
        join(app, 'package.json'),
        manifest(tarballs, {
          devDependencies: { typescript: '5.9.3', '@types/node': '20.19.43' },
          overrides: compiled ? { 'better-sqlite3': `file:${compiled}` } : {},
        }),
      );
      await npm(app, compiled ? ['install', '--ignore-scripts'] : ['install']);

      const undeclared = [...tarballs.keys()].flatMap((name) =>
        undeclaredTypeImports(join(app, 'node_modules', name)).map((line) => `${name}/${line}`),
      );
      expect(undeclared).toEqual([]);

      const tsc = await run(join(app, 'node_modules', '.bin', 'tsc'), ['-p', app]).catch(
        (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error), failed: true }),
      );
      expect(tsc.stdout).toBe('');

      const { stdout } = await run(process.execPath, ['dist/app.js'], { cwd: app, env: npmEnv() });
      expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({
        state: 'completed',
        final_answer: 'done',
        approvedTwice: 'task_not_waiting',
        refused: 'invalid_configuration',
        plain: { runs: 1, missing: 'run_not_found' },
        inbox: expect.stringMatching(/^200 text\/html/),
      });

      // The kernel's own command is installed and answers.
      const help = await run(join(app, 'node_modules', '.bin', 'airlock'), ['--help']).catch(
        (error: { stdout?: string; stderr?: string }) => error,
      );
      expect(`${help.stdout}${help.stderr}`).toMatch(/serve/);
    },
    INSTALL_TIMEOUT_MS,
  );

  it(
    'every export of every installed package resolves under every condition it names, and loads under source too',
    async () => {
      const app = join(root, 'app');
      const failures: string[] = [];
      const byCondition = new Map<string, Set<string>>();
      // A framework adapter (for example @airlock/sdk/langgraph) needs its framework, an optional
      // peer a stranger installs only with it: without the peer it must resolve to a file that exists.
      const optionalPeers = new Set<string>();
      for (const name of tarballs.keys()) {
        const installed = JSON.parse(
          readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8'),
        );
        for (const [peer, meta] of Object.entries(installed.peerDependenciesMeta ?? {}))
          if ((meta as { optional?: boolean }).optional) optionalPeers.add(peer);
        for (const leaf of exportTargets(installed.exports)) {
          const condition = leaf.conditions.at(-1) ?? 'default';
          const specs = byCondition.get(condition) ?? new Set<string>();
          specs.add(specifierOf(name, leaf.subpath));
          byCondition.set(condition, specs);
        }
      }
      // `source` is what a workspace resolves; a stranger who passes it must still get working files.
      byCondition.set('source', new Set([...byCondition.values()].flatMap((specs) => [...specs])));
      for (const [condition, specs] of byCondition) {
        // Type declarations are resolved and must exist (Node's resolve does not look); the rest must load.
        const load =
          condition === 'types'
            ? "const u = new URL(import.meta.resolve(s)); if (!existsSync(u)) throw { code: 'missing ' + u.pathname }"
            : `try { await import(s); } catch (e) { const peer = ${JSON.stringify([...optionalPeers])}.find((p) => e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes("'" + p)); if (peer === undefined || !existsSync(new URL(import.meta.resolve(s)))) throw e; }`;
        const script = `import { existsSync } from 'node:fs'; const out = []; for (const s of ${JSON.stringify([...specs])}) { try { ${load}; } catch (e) { out.push(s + ': ' + e.code); } } console.log(JSON.stringify(out));`;
        const args = condition === 'default' ? [] : [`--conditions=${condition}`];
        const { stdout } = await run(
          process.execPath,
          [...args, '--input-type=module', '-e', script],
          { cwd: app, env: npmEnv() },
        );
        for (const line of JSON.parse(stdout.trim().split('\n').at(-1)!) as string[])
          failures.push(`[${condition}] ${line}`);
      }
      expect(failures).toEqual([]);
    },
    INSTALL_TIMEOUT_MS,
  );

  it(
    'the SDK alone installs small, with no TypeScript compiler, and imports under --legacy-peer-deps',
    async () => {
      const only = join(root, 'sdk-only');
      mkdirSync(only);
      const sdk = new Map(
        [...tarballs].filter(([name]) => name === '@airlock/sdk' || name === '@airlock/core'),
      );
      writeFileSync(join(only, 'package.json'), manifest(sdk));
      await npm(only, ['install', '--omit=dev', '--legacy-peer-deps']);
      const { stdout: du } = await run('du', ['-sk', join(only, 'node_modules')]);
      const kilobytes = Number(du.split(/\s+/)[0]);
      console.log(`[airlock tests] @airlock/sdk install size: ${(kilobytes / 1024).toFixed(1)} MB`);
      const { stdout: tree } = await npm(only, ['ls', '--all', '--parseable']);
      expect(tree).not.toMatch(/node_modules\/typescript$/m);
      expect(tree).not.toMatch(/@trpc/);
      // 44 MB before the SDK shed tRPC's packages; today zod (core's one dependency) is most of it.
      // Within 10 % of the 11 MB it was before the framework adapters (issue 30): OpenTelemetry's API
      // is an optional peer, installed by the applications that trace.
      expect(tree).not.toMatch(/@opentelemetry/);
      expect(kilobytes).toBeLessThan(11 * 1.1 * 1024);
      const imported = await run(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "const sdk = await import('@airlock/sdk'); console.log(typeof sdk.createClient)",
        ],
        { cwd: only },
      );
      expect(imported.stdout.trim()).toBe('function');
    },
    INSTALL_TIMEOUT_MS,
  );
});
