import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportTargets, specifierOf } from './exports-map.js';
import { type PublicPackage, pack, publicPackages } from './tarballs.js';

describe('exportTargets', () => {
  it('walks subpaths and nested conditions', () => {
    expect(
      exportTargets({
        '.': { source: './src/index.ts', node: { import: './a.js' }, default: './b.js' },
        './cli': './cli.js',
      }),
    ).toEqual([
      { subpath: '.', conditions: ['source'], target: './src/index.ts' },
      { subpath: '.', conditions: ['node', 'import'], target: './a.js' },
      { subpath: '.', conditions: ['default'], target: './b.js' },
      { subpath: './cli', conditions: [], target: './cli.js' },
    ]);
    expect(exportTargets('./index.js')).toEqual([
      { subpath: '.', conditions: [], target: './index.js' },
    ]);
    expect(specifierOf('@airlock/mcp', './cli')).toBe('@airlock/mcp/cli');
  });
});

describe('what the tarballs hold', () => {
  let root: string;
  const packed = new Map<string, { files: Set<string>; manifest: Record<string, unknown> }>();

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'airlock-tarball-files-'));
    for (const pkg of publicPackages() as PublicPackage[]) {
      const tarball = await pack(pkg, root);
      const files = new Set(
        execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' })
          .trim()
          .split('\n')
          .map((line) => line.replace(/^package\//, '')),
      );
      const manifest = JSON.parse(
        execFileSync('tar', ['xzf', tarball, '-O', 'package/package.json'], { encoding: 'utf8' }),
      );
      packed.set(pkg.name, { files, manifest });
    }
  }, 120_000);
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('every published manifest names only files its tarball contains (exports and bin)', () => {
    const missing: string[] = [];
    for (const [name, { files, manifest }] of packed) {
      for (const leaf of exportTargets(manifest.exports))
        if (!files.has(leaf.target.replace(/^\.\//, '')))
          missing.push(`${name} ${leaf.subpath} [${leaf.conditions.join(' ')}] -> ${leaf.target}`);
      for (const target of Object.values((manifest.bin ?? {}) as Record<string, string>))
        if (!files.has(target.replace(/^\.\//, ''))) missing.push(`${name} bin -> ${target}`);
    }
    expect(missing).toEqual([]);
  });

  it('leaves out what users do not import: benchmarks, demos, test helpers, build info', () => {
    const shipped = [...packed].flatMap(([name, { files }]) =>
      [...files]
        .filter((file) => /^dist\/(bench|demo|scripts|testing)\/|\.tsbuildinfo$/.test(file))
        .map((file) => `${name}: ${file}`),
    );
    expect(shipped).toEqual([]);
  });

  it('the workspace keeps its source condition, so tests run against src', () => {
    const core = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../../core/package.json'), 'utf8'),
    );
    expect(core.exports['.'].source).toBe('./src/index.ts');
  });
});
