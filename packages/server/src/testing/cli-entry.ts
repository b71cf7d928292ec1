import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGES = fileURLToPath(new URL('../../../', import.meta.url));

/** The built CLI, what a user runs (`pnpm run build` makes it). */
export const BUILT_CLI = join(PACKAGES, 'server', 'dist', 'cli.js');
/** The CLI's sources, run through tsx (found from here, not from a command's working directory). */
const FROM_SOURCES = [
  '--conditions=source',
  '--import',
  pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href,
  join(PACKAGES, 'server', 'src', 'cli.ts'),
];

/**
 * The packages the CLI loads, with their sources and what their build writes. The build's own
 * JavaScript is the stamp, not `tsconfig.tsbuildinfo`: a `tsc --noEmit -p` rewrites that file
 * and emits nothing, which made a stale `dist/` look current.
 */
const BUILT_PACKAGES = ['core', 'sdk', 'hooks', 'server'].map((name) => ({
  sources: join(PACKAGES, name, 'src'),
  built: join(PACKAGES, name, 'dist'),
}));

/** The newest change to a file under `dir` that `counts` (directories `skipped` left out). */
function newestChange(
  dir: string,
  counts: (name: string) => boolean,
  skipped: ReadonlySet<string>,
): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skipped.has(entry.name)) newest = Math.max(newest, newestChange(path, counts, skipped));
    } else if (counts(entry.name)) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

/** Tests, fixtures and test helpers are no build input. */
const NOT_INPUT = new Set(['testing', 'fixtures']);
const isInput = (name: string) => name.endsWith('.ts') && !name.endsWith('.test.ts');
const isOutput = (name: string) => name.endsWith('.js');

/** Whether the build is there and no source changed since: the built CLI is the sources' CLI. */
function buildIsCurrent(): boolean {
  if (!existsSync(BUILT_CLI)) return false;
  return BUILT_PACKAGES.every(
    ({ sources, built }) =>
      existsSync(built) &&
      newestChange(sources, isInput, NOT_INPUT) <= newestChange(built, isOutput, new Set()),
  );
}

function chooseEntry(): string[] {
  const chosen = process.env.AIRLOCK_TEST_CLI;
  if (chosen === 'sources') return FROM_SOURCES;
  if (chosen === 'built') {
    if (!existsSync(BUILT_CLI))
      throw new Error(`AIRLOCK_TEST_CLI=built, but ${BUILT_CLI} is not built`);
    return [BUILT_CLI];
  }
  return buildIsCurrent() ? [BUILT_CLI] : FROM_SOURCES;
}

/**
 * Node's arguments that run the real `airlock` CLI, before the CLI's own.
 *
 * The built CLI when the build is current (`pnpm test` builds first): it is
 * what users run, and it starts without transpiling the kernel's sources,
 * which tsx does on every start (about 0.4 s more per command and 1.8 s more
 * per kernel start on these 2-core machines). After an edit with no build,
 * the sources run through tsx, so a test never runs yesterday's code.
 * `AIRLOCK_TEST_CLI=built` or `=sources` chooses outright.
 */
export const CLI_NODE_ARGS: readonly string[] = chooseEntry();
