import { describe, expect, it } from 'vitest';
import {
  BACKEND_NAMED_BRANCH,
  backendBranchesOutsideDialect,
  DIALECT_BRANCH,
  QUERY_BUILDER_CALL,
  QUERY_LAYER_REACH,
  queryBuildersOutsideStore,
  queryLayerReachesOutsideStore,
  TRANSACTION_WEAKMAP,
  transactionWeakMapsOutsideStore,
} from './counts.js';
import { circlePath, findCircles, readImportGraph, type SourceFile } from './import-graph.js';

/**
 * The house rules of DESIGN.md ("The store is a boundary"), checked on every
 * `./run test`: no import circle anywhere in `packages/`, `store/` never
 * reaches into the kernel, only `store/` speaks to a database driver, and
 * only `store/` writes SQL or holds its query layer.
 */

const graph = readImportGraph();
const STORE = 'packages/server/src/store/';
const DATABASE_DRIVERS = /^(kysely|pg|better-sqlite3)(\/|$)/;
/** Each backend folder of the store, and the driver only it may import. */
const BACKEND_DRIVERS: Record<string, RegExp> = {
  postgres: /^pg(\/|$)/,
  sqlite: /^better-sqlite3(\/|$)/,
};

/** The store-internal module holding the key to the query layer (see store/sql-handle.ts). */
const SQL_HANDLE = 'packages/server/src/store/sql-handle.ts';

/**
 * Package source files bound by the driver rule: not tests, not test support (the server's, and
 * the test package's, which makes the PostgreSQL databases its kernels run on).
 */
function boundByDriverRule(file: SourceFile): boolean {
  return (
    /^packages\/[^/]+\/src\//.test(file.path) &&
    !file.path.startsWith(STORE) &&
    !file.path.startsWith('packages/server/src/testing/') &&
    !file.path.startsWith('packages/tests/src/support/') &&
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
    expect(importers, 'SQL belongs to a repository in packages/server/src/store').toEqual([]);
  });

  it("keeps each backend's driver in its folder (pg in store/postgres/, better-sqlite3 in store/sqlite/)", () => {
    const strays = [...graph.values()]
      .filter((file) => file.path.startsWith(STORE) && !file.path.endsWith('.test.ts'))
      .flatMap((file) =>
        Object.entries(BACKEND_DRIVERS)
          .filter(
            ([folder, driver]) =>
              !file.path.startsWith(`${STORE}${folder}/`) &&
              file.specifiers.some((specifier) => driver.test(specifier)),
          )
          .map(([folder]) => `${file.path} imports the driver of store/${folder}/`),
      );
    expect(strays, "what differs between backends lives in the backend's folder").toEqual([]);
  });

  it("keeps the query layer's key inside store/ (no file outside imports sql-handle.ts)", () => {
    const importers = [...graph.values()]
      .filter((file) => !file.path.startsWith(STORE) && file.imports.includes(SQL_HANDLE))
      .map((file) => file.path);
    expect(importers, 'call a repository of store/ instead of reaching for its SQL').toEqual([]);
  });
});

describe('house rules of the store boundary (issue 26)', () => {
  it('has no query-builder call outside store/', () => {
    const count = queryBuildersOutsideStore();
    expect(count.detail, 'move the statement into a repository of store/').toEqual([]);
    expect(count.value).toBe(0);
  });

  it('has no WeakMap keyed by a transaction outside store/', () => {
    const count = transactionWeakMapsOutsideStore();
    expect(count.detail, "a unit of work's cache belongs to the repository it serves").toEqual([]);
    expect(count.value).toBe(0);
  });

  it('has no reach for the query layer (.db, SQL, a dialect branch) outside store/', () => {
    const count = queryLayerReachesOutsideStore();
    expect(count.detail, 'ask a repository of store/; the backends differ only there').toEqual([]);
    expect(count.value).toBe(0);
  });

  it('names a backend in a store branch only in store/dialect.ts (a third backend is one entry there)', () => {
    const count = backendBranchesOutsideDialect();
    expect(count.detail, 'ask DIALECT_TRAITS for what differs instead').toEqual([]);
    expect("if (dialect !== 'postgres') return;".match(BACKEND_NAMED_BRANCH)).toHaveLength(1);
  });

  it('recognises what it forbids (the checks above can fail)', () => {
    const kernelCode = [
      "await tx.db.selectFrom('tasks').selectAll().execute();",
      "await store.db.updateTable('runs').set({ phase: 'model' }).execute();",
      "tx[SQL].db.deleteFrom('tasks');",
      "if (tx.dialect === 'postgres') qb.forUpdate();",
      'const cache = new WeakMap<Tx, Set<string>>();',
    ].join('\n');
    expect(kernelCode.match(QUERY_BUILDER_CALL)).toHaveLength(3);
    expect(kernelCode.match(QUERY_LAYER_REACH)).toHaveLength(4);
    expect(kernelCode.match(DIALECT_BRANCH)).toHaveLength(1);
    expect(kernelCode.match(TRANSACTION_WEAKMAP)).toHaveLength(1);
  });
});

/** The store's writers of run and task state: only the machines may call them. */
const STATE_WRITERS = [
  'packages/server/src/store/task-moves.ts',
  'packages/server/src/store/run-writes.ts',
];
const MACHINES = 'packages/server/src/kernel/machines/';

/** Who imports a state writer, outside store/, the machines and tests. */
function stateWritersOutsideMachines(files: Iterable<SourceFile>): string[] {
  const reaches: string[] = [];
  for (const file of files) {
    if (file.path.startsWith(STORE) || file.path.startsWith(MACHINES)) continue;
    if (/\.test\.tsx?$/.test(file.path) || file.path.includes('/src/testing/')) continue;
    for (const target of file.imports) {
      if (STATE_WRITERS.includes(target)) reaches.push(`${file.path} imports ${target}`);
    }
  }
  return reaches.sort();
}

describe('house rules of the kernel (issue 26)', () => {
  it('keeps the kernel in rooms: no source file sits loose beside the rooms but the kernel, its context and views', () => {
    const loose = [...graph.keys()]
      .filter((path) => /^packages\/server\/src\/kernel\/[^/]+\.ts$/.test(path))
      .filter((path) => !path.endsWith('.test.ts'))
      .sort();
    expect(loose).toEqual([
      'packages/server/src/kernel/context.ts',
      'packages/server/src/kernel/kernel.ts',
      'packages/server/src/kernel/views.ts',
    ]);
  });

  it('writes run and task state only through the machines (kernel/machines/)', () => {
    expect(
      stateWritersOutsideMachines(graph.values()),
      'move the run or task through kernel/machines (moveTask, the run machine)',
    ).toEqual([]);
  });

  it('finds a state write outside the machines when there is one (the check above can fail)', () => {
    const verb: SourceFile = {
      path: 'packages/server/src/kernel/verbs/x.ts',
      specifiers: ['../../store/task-moves.js'],
      imports: ['packages/server/src/store/task-moves.ts'],
    };
    expect(stateWritersOutsideMachines([verb])).toEqual([
      'packages/server/src/kernel/verbs/x.ts imports packages/server/src/store/task-moves.ts',
    ]);
  });
});
