import { describe, expect, it } from 'vitest';
import { circlePath, findCircles, readImportGraph, type SourceFile } from './import-graph.js';

/**
 * The house rules of DESIGN.md ("The store is a boundary"), checked on every
 * `./run test`: no import circle anywhere in `packages/`, `store/` never
 * reaches into the kernel, and only `store/` speaks to a database driver.
 */

const graph = readImportGraph();
const STORE = 'packages/server/src/store/';
const DATABASE_DRIVERS = /^(kysely|pg|better-sqlite3)(\/|$)/;

/**
 * Files outside `store/` that still import a database driver, while the
 * kernel's SQL moves into the store's repositories (issue 26). The list only
 * shrinks: a new importer fails, and so does a listed file that stopped.
 */
const DRIVER_IMPORTERS_LEFT = [
  'packages/server/src/cli/local-workspace.ts',
  'packages/server/src/kernel/run-state.ts',
];

/** Package source files bound by the driver rule: not tests, not test support. */
function boundByDriverRule(file: SourceFile): boolean {
  return (
    /^packages\/[^/]+\/src\//.test(file.path) &&
    !file.path.startsWith(STORE) &&
    !file.path.startsWith('packages/server/src/testing/') &&
    !/\.test\.tsx?$/.test(file.path)
  );
}

describe('house rules of the import graph', () => {
  it('reads the graph it checks (the rules below are not vacuous)', () => {
    expect(graph.size).toBeGreaterThan(300);
    const store = graph.get('packages/server/src/store/store.ts');
    expect(store?.specifiers).toContain('kysely');
    expect(store?.imports).toContain('packages/server/src/store/event-log.ts');
  });

  it('has no import circle anywhere in packages/', () => {
    const circles = findCircles(graph).map(
      (circle) => `${circle.length} files: ${circlePath(graph, circle[0]!).join(' -> ')}`,
    );
    expect(circles, 'an import circle closed; break it by moving what both sides need').toEqual([]);
  });

  it('finds a circle when there is one (the check above can fail)', () => {
    const looped = new Map<string, SourceFile>([
      ['a.ts', { path: 'a.ts', specifiers: [], imports: ['b.ts'] }],
      ['b.ts', { path: 'b.ts', specifiers: [], imports: ['c.ts'] }],
      ['c.ts', { path: 'c.ts', specifiers: [], imports: ['a.ts'] }],
      ['d.ts', { path: 'd.ts', specifiers: [], imports: ['a.ts'] }],
    ]);
    expect(findCircles(looped)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(circlePath(looped, 'a.ts')).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });

  it('keeps store/ free of imports from the kernel, the API and the feed', () => {
    const crossings: string[] = [];
    for (const file of graph.values()) {
      if (!file.path.startsWith(STORE)) continue;
      for (const target of file.imports) {
        if (/^packages\/server\/src\/(kernel|api|feed|audit|cli)\//.test(target)) {
          crossings.push(`${file.path} imports ${target}`);
        }
      }
    }
    expect(
      crossings,
      'store/ is the bottom of the server: move the shared type into store/ or core',
    ).toEqual([]);
  });

  it('lets only store/ import a database driver (kysely, pg, better-sqlite3)', () => {
    const importers = [...graph.values()]
      .filter(boundByDriverRule)
      .filter((file) => file.specifiers.some((specifier) => DATABASE_DRIVERS.test(specifier)))
      .map((file) => file.path)
      .sort();
    const newcomers = importers.filter((path) => !DRIVER_IMPORTERS_LEFT.includes(path));
    expect(newcomers, 'SQL belongs to a repository in packages/server/src/store').toEqual([]);
    const moved = DRIVER_IMPORTERS_LEFT.filter((path) => !importers.includes(path));
    expect(moved, 'these files no longer import a driver: drop them from the list').toEqual([]);
  });
});
