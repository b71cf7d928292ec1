import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root. */
export const REPO_ROOT = join(import.meta.dirname, '..', '..', '..', '..');

/** A workspace package that is published. */
export interface PublicPackage {
  name: string;
  dir: string;
}

/** Every package of the workspace that is not private. */
export function publicPackages(): PublicPackage[] {
  const root = join(REPO_ROOT, 'packages');
  return readdirSync(root)
    .map((entry) => join(root, entry))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ name: manifest.name as string, dir }));
}

/** Packs a package with `pnpm pack` (workspace ranges become versions) and returns the tarball. */
export async function pack(pkg: PublicPackage, destination: string): Promise<string> {
  const { stdout } = await run('pnpm', ['pack', '--pack-destination', destination], {
    cwd: pkg.dir,
  });
  const tarball = stdout
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .reverse()
    .find((line) => line.endsWith('.tgz'));
  if (!tarball) throw new Error(`pnpm pack printed no tarball for ${pkg.name}: ${stdout}`);
  return tarball.startsWith('/') ? tarball : join(destination, tarball);
}

/** The environment npm runs with: node-gyp uses the installed Node headers when there are some. */
export function npmEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...(existsSync('/usr/include/node/node.h') ? { npm_config_nodedir: '/usr' } : {}),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    // What npm's cache holds is installed without asking the registry again whether it changed
    // (pinned versions do not): half of an install's time here. A missing package is still fetched.
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
  };
}

/** Runs npm in a directory. */
export function npm(cwd: string, args: string[]) {
  return run('npm', args, { cwd, env: npmEnv(), maxBuffer: 64 * 1024 * 1024 });
}

/** The bare package a module specifier names (`@scope/name/sub` -> `@scope/name`), or null. */
export function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) {
    return null;
  }
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

const SPECIFIERS = [
  /\bfrom\s+['"]([^'"]+)['"]/g,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\/\/\/\s*<reference\s+types=['"]([^'"]+)['"]/g,
];

function declarationFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Every package a published `.d.ts` names that its package.json does not
 * declare (as itself or its `@types/` package), as `file: package` lines.
 */
export function undeclaredTypeImports(installedPackageDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(installedPackageDir, 'package.json'), 'utf8'));
  const declared = new Set<string>([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const missing: string[] = [];
  for (const file of declarationFiles(installedPackageDir)) {
    if (relative(installedPackageDir, file).includes('node_modules')) continue;
    const text = readFileSync(file, 'utf8');
    for (const pattern of SPECIFIERS) {
      for (const match of text.matchAll(pattern)) {
        const name = packageOf(match[1]!);
        if (!name || builtinModules.includes(name)) continue;
        const typesName = `@types/${name.replace(/^@/, '').replace('/', '__')}`;
        if (!declared.has(name) && !declared.has(typesName)) {
          missing.push(`${relative(installedPackageDir, file)}: ${name}`);
        }
      }
    }
  }
  return missing;
}

/** The workspace's own compiled better-sqlite3 package directory, when the build left one. */
export function compiledBetterSqlite(): string | null {
  const store = join(REPO_ROOT, 'node_modules', '.pnpm');
  if (!existsSync(store)) return null;
  for (const entry of readdirSync(store)) {
    if (!entry.startsWith('better-sqlite3@')) continue;
    const dir = join(store, entry, 'node_modules', 'better-sqlite3');
    if (existsSync(join(dir, 'build', 'Release', 'better_sqlite3.node'))) return dir;
  }
  return null;
}
