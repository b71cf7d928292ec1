/**
 * The measures of issue 26, one function each, shared by `scripts/house-counts.ts`
 * and the guard tests. Test files are left out of every count but the circles:
 * they are not part of the house a caller lives in.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { findCircles, listSourceFiles, REPOSITORY_ROOT, readImportGraph } from './import-graph.js';

/** One count, with what it lists (a file per line, its share). */
export interface HouseCount {
  key: string;
  label: string;
  value: number | string;
  detail: string[];
}

const SERVER_SOURCE = join(REPOSITORY_ROOT, 'packages/server/src');
const STORE_FOLDER = 'packages/server/src/store/';

function isTest(path: string): boolean {
  return /\.test\.tsx?$/.test(path);
}

/** Source files of the packages (no tests, no benchmarks, no scripts), relative to the root. */
function packageSources(): string[] {
  return listSourceFiles(join(REPOSITORY_ROOT, 'packages'))
    .map((file) => relative(REPOSITORY_ROOT, file))
    .filter((path) => /^packages\/[^/]+\/src\//.test(path) && !isTest(path));
}

function read(path: string): string {
  return readFileSync(join(REPOSITORY_ROOT, path), 'utf8');
}

/** Counts a pattern per file over some files; the detail lists the files that have any. */
function countPerFile(
  files: string[],
  pattern: RegExp,
): { total: number; files: number; detail: string[] } {
  let total = 0;
  const detail: string[] = [];
  for (const path of files) {
    const found = read(path).match(pattern)?.length ?? 0;
    if (found === 0) continue;
    total += found;
    detail.push(`${path}: ${found}`);
  }
  return { total, files: detail.length, detail };
}

/** Kysely's statement builders: `db.selectFrom(`, `.updateTable(`, and the rest. */
export const QUERY_BUILDER_CALL =
  /\.(selectFrom|selectNoFrom|updateTable|insertInto|replaceInto|deleteFrom|mergeInto)\(/g;

/** Query-builder calls in server source files outside `store/` (target 0). */
export function queryBuildersOutsideStore(): HouseCount {
  const files = packageSources().filter(
    (path) => path.startsWith('packages/server/src/') && !path.startsWith(STORE_FOLDER),
  );
  const { total, files: fileCount, detail } = countPerFile(files, QUERY_BUILDER_CALL);
  return {
    key: 'query_builder_calls_outside_store',
    label: `query-builder calls outside store/ (${fileCount} files)`,
    value: total,
    detail,
  };
}

/** A WeakMap whose key is a transaction handle (`WeakMap<Tx, …>`). */
export const TRANSACTION_WEAKMAP = /new WeakMap<\s*(Tx|Transaction<[^>]*>)\s*,/g;

/** WeakMaps keyed by a transaction in server source files outside `store/` (target 0). */
export function transactionWeakMapsOutsideStore(): HouseCount {
  const files = packageSources().filter(
    (path) => path.startsWith('packages/server/src/') && !path.startsWith(STORE_FOLDER),
  );
  const { total, detail } = countPerFile(files, TRANSACTION_WEAKMAP);
  return {
    key: 'transaction_weakmaps_outside_store',
    label: 'WeakMaps keyed by a transaction outside store/',
    value: total,
    detail,
  };
}

/** A reach for the store's query layer: a member named `db`, or the store-internal key `SQL`. */
export const QUERY_LAYER_REACH = /\.db\b|\[SQL\]/g;

/** A backend branch: a member named `dialect` (which SQL the store speaks). */
export const DIALECT_BRANCH = /\.dialect\b/g;

/** A branch that names a backend: `dialect === 'postgres'`, `!== 'sqlite'` and the like. */
export const BACKEND_NAMED_BRANCH = /[!=]==\s*'(postgres|sqlite)'/g;

/** The file where what differs between the backends is written down (DIALECT_TRAITS). */
const DIALECT_FILE = 'packages/server/src/store/dialect.ts';

/** Branches naming a backend in store/ but its dialect table (target 0). */
export function backendBranchesOutsideDialect(): HouseCount {
  const found = countPerFile(
    packageSources().filter((path) => path.startsWith(STORE_FOLDER) && path !== DIALECT_FILE),
    BACKEND_NAMED_BRANCH,
  );
  return {
    key: 'backend_branches_in_store',
    label: 'branches naming a backend in store/ outside store/dialect.ts',
    value: found.total,
    detail: found.detail,
  };
}

/** Rooms of the server that speak to the store only through its repositories. */
const STORE_CLIENT_ROOMS = /^packages\/server\/src\/(kernel|api|feed|audit|notifications)\//;

/**
 * Reaches for the query layer in server source files outside `store/` (target
 * 0): `.db` on the store or a unit of work (`Tx` no longer has one; only the
 * store keeps its handle, for tests), the store-internal `SQL` key, and, in
 * the rooms that talk to repositories only (kernel, api, feed, audit,
 * notifications), any branch on the backend's `dialect`.
 */
export function queryLayerReachesOutsideStore(): HouseCount {
  const files = packageSources().filter(
    (path) =>
      path.startsWith('packages/server/src/') &&
      !path.startsWith(STORE_FOLDER) &&
      !path.startsWith('packages/server/src/testing/'),
  );
  let total = 0;
  const detail: string[] = [];
  for (const path of files) {
    const text = read(path);
    const found =
      (text.match(QUERY_LAYER_REACH)?.length ?? 0) +
      (STORE_CLIENT_ROOMS.test(path) ? (text.match(DIALECT_BRANCH)?.length ?? 0) : 0);
    if (found === 0) continue;
    total += found;
    detail.push(`${path}: ${found}`);
  }
  return {
    key: 'query_layer_reaches_outside_store',
    label: 'reaches for the query layer (.db, SQL, a dialect branch) outside store/',
    value: total,
    detail,
  };
}

/** File-level import circles anywhere in `packages/` (target 0). */
export function importCircles(): HouseCount {
  const circles = findCircles(readImportGraph());
  return {
    key: 'import_circles',
    label: 'import circles in packages/ (strongly connected groups of files)',
    value: circles.length,
    detail: circles.map((circle) => `${circle.length} files: ${circle.join(', ')}`),
  };
}

/**
 * A hand-written HTTP call: an HTTP method named as a literal argument
 * (`callKernel(connection, 'POST', path)`, `this.send('GET', …)`).
 */
export const HAND_WRITTEN_REST_CALL = /[(,]\s*'(GET|POST|PUT|PATCH|DELETE)'/g;

/**
 * Hand-written REST calls in package sources outside the SDK (target 0). The
 * server's own route table (`api/`) and the operation contracts in core
 * declare paths rather than call them, and test support (`server/src/testing`,
 * `packages/tests`) probes the REST surface on purpose, so none is counted.
 */
export function handWrittenRestCalls(): HouseCount {
  const files = packageSources().filter(
    (path) =>
      !path.startsWith('packages/sdk/') &&
      !path.startsWith('packages/core/') &&
      !path.startsWith('packages/tests/') &&
      !path.startsWith('packages/server/src/testing/') &&
      !path.startsWith('packages/server/src/api/'),
  );
  const { total, detail } = countPerFile(files, HAND_WRITTEN_REST_CALL);
  return {
    key: 'hand_written_rest_calls',
    label: 'hand-written REST calls outside the SDK',
    value: total,
    detail,
  };
}

/** True when a type is (or, made non-null, is) a bag of any keys: `Record<string, unknown>`. */
function isLooseRecord(checker: ts.TypeChecker, type: ts.Type): boolean {
  const solid = checker.getNonNullableType(type);
  const parts = solid.isUnion() ? solid.types : [solid];
  return parts.some((part) => checker.getIndexInfoOfType(part, ts.IndexKind.String) !== undefined);
}

/**
 * Emit sites of the server (`tx.emit({...})`) whose event payload the compiler
 * does not check against core's event union: the argument's declared type, or
 * its `data` field, accepts any keys (target 0).
 */
export function untypedEmitSites(): HouseCount {
  const configPath = join(REPOSITORY_ROOT, 'packages/server/tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configPath));
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const checker = program.getTypeChecker();
  let total = 0;
  const perFile = new Map<string, number>();
  for (const source of program.getSourceFiles()) {
    if (!source.fileName.startsWith(SERVER_SOURCE) || isTest(source.fileName)) continue;
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'emit' &&
        node.arguments.length > 0
      ) {
        const signature = checker.getResolvedSignature(node);
        const parameter = signature?.getParameters()[0];
        if (parameter) {
          const type = checker.getTypeOfSymbolAtLocation(parameter, node);
          const data = checker.getPropertyOfType(checker.getNonNullableType(type), 'data');
          const loose =
            isLooseRecord(checker, type) ||
            (data !== undefined &&
              isLooseRecord(checker, checker.getTypeOfSymbolAtLocation(data, node)));
          if (loose) {
            total += 1;
            const path = relative(REPOSITORY_ROOT, source.fileName);
            perFile.set(path, (perFile.get(path) ?? 0) + 1);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return {
    key: 'untyped_emit_sites',
    label: `untyped emit sites (${perFile.size} files)`,
    value: total,
    detail: [...perFile].map(([path, count]) => `${path}: ${count}`),
  };
}

/** The largest package source file by lines. */
export function largestFile(): HouseCount {
  let best = { path: '', lines: 0 };
  for (const path of packageSources()) {
    const lines = read(path).split('\n').length;
    if (lines > best.lines) best = { path, lines };
  }
  return {
    key: 'largest_file',
    label: 'largest file (lines)',
    value: `${best.path} ${best.lines}`,
    detail: [],
  };
}

/** The package source folder holding the most files (its own files, not its subfolders'). */
export function largestFolder(): HouseCount {
  const perFolder = new Map<string, number>();
  for (const path of packageSources()) {
    const folder = dirname(path);
    perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
  }
  const [folder, files] = [...perFolder].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
  return {
    key: 'files_in_largest_folder',
    label: 'files in the largest folder (no tests)',
    value: `${folder} ${files}`,
    detail: [],
  };
}

/** Every count, in the order of the issue. */
export function measureHouse(): HouseCount[] {
  return [
    queryBuildersOutsideStore(),
    transactionWeakMapsOutsideStore(),
    queryLayerReachesOutsideStore(),
    backendBranchesOutsideDialect(),
    importCircles(),
    handWrittenRestCalls(),
    untypedEmitSites(),
    largestFile(),
    largestFolder(),
  ];
}
