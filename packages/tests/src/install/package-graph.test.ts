import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './tarballs.js';

interface Manifest {
  name: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function manifests(): Manifest[] {
  const root = join(REPO_ROOT, 'packages');
  return readdirSync(root)
    .map((entry) => join(root, entry, 'package.json'))
    .filter((file) => existsSync(file))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')) as Manifest);
}

/** The workspace packages a package names in any dependency list. */
function edges(manifest: Manifest, names: Set<string>): string[] {
  const all = {
    ...manifest.dependencies,
    ...manifest.devDependencies,
    ...manifest.peerDependencies,
  };
  return Object.keys(all).filter((name) => names.has(name));
}

describe('the package graph', () => {
  const packages = manifests();
  const names = new Set(packages.map((p) => p.name));
  const byName = new Map(packages.map((p) => [p.name, p]));

  it('has no cycle, dev dependencies included', () => {
    const cycles: string[] = [];
    const visit = (name: string, path: string[]) => {
      if (path.includes(name)) {
        cycles.push([...path.slice(path.indexOf(name)), name].join(' -> '));
        return;
      }
      for (const next of edges(byName.get(name)!, names)) visit(next, [...path, name]);
    };
    for (const name of names) visit(name, []);
    expect(cycles).toEqual([]);
  });

  it('points one way: core depends on no workspace package; the SDK only on core', () => {
    expect(edges(byName.get('@airlock/core')!, names)).toEqual([]);
    expect(edges(byName.get('@airlock/sdk')!, names)).toEqual(['@airlock/core']);
  });

  it('lets no published package depend on the server (the kernel is a leaf; its CLI uses the SDK)', () => {
    const dependents = packages
      .filter((p) => !p.private && edges(p, names).includes('@airlock/server'))
      .map((p) => p.name);
    expect(dependents).toEqual([]);
    expect(edges(byName.get('@airlock/server')!, names)).toContain('@airlock/sdk');
  });

  it('publishes nothing that depends on a private package', () => {
    const privates = new Set(packages.filter((p) => p.private).map((p) => p.name));
    const leaks = packages
      .filter((p) => !p.private)
      .flatMap((p) =>
        Object.keys({ ...p.dependencies, ...p.peerDependencies })
          .filter((name) => privates.has(name))
          .map((name) => `${p.name} -> ${name}`),
      );
    expect(leaks).toEqual([]);
  });
});
