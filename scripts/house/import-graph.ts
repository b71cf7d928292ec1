/**
 * The file-level import graph of `packages/`: every TypeScript source file
 * (tests and benchmarks included) and the files it imports, type-only imports
 * included, since a type that closes a circle ties two rooms together as
 * surely as a value does. Imports between packages by package name resolve to
 * the file the `source` condition of the package's `exports` map names.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The repository root (this file lives in `scripts/house/`). */
export const REPOSITORY_ROOT = resolve(import.meta.dirname, '..', '..');

const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'fixtures', 'golden', 'coverage', 'web']);

/** One source file and what it imports, as paths relative to the repository root. */
export interface SourceFile {
  path: string;
  /** Module specifiers exactly as written. */
  specifiers: string[];
  /** Files inside `packages/` those specifiers resolve to. */
  imports: string[];
}

/**
 * Every `.ts` file under a folder, skipping build output, dependencies, fixtures and hidden
 * entries: a test running beside the guards writes and removes files of its own under a hidden
 * folder (`packages/tests/.sample-*`, a docs sample compiled in place), so an entry gone between
 * the listing and its read is no source of the repository either.
 */
export function listSourceFiles(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder)) {
    if (SKIPPED_FOLDERS.has(entry) || entry.startsWith('.')) continue;
    const full = join(folder, entry);
    const stat = statSync(full, { throwIfNoEntry: false });
    if (stat?.isDirectory()) found.push(...listSourceFiles(full));
    else if (stat && /\.tsx?$/.test(entry) && !entry.endsWith('.d.ts')) found.push(full);
  }
  return found;
}

/** A source file's text, or null when it went since it was listed (see {@link listSourceFiles}). */
function readSource(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Maps `@airlock/x` and `@airlock/x/sub` to the source file its exports map names. */
function packageEntries(root: string): Map<string, string> {
  const entries = new Map<string, string>();
  const packagesFolder = join(root, 'packages');
  for (const name of readdirSync(packagesFolder)) {
    const manifestPath = join(packagesFolder, name, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      name?: string;
      exports?: Record<string, { source?: string } | string>;
    };
    if (!manifest.name || !manifest.exports) continue;
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      const source = typeof target === 'string' ? target : target.source;
      if (!source || !/\.tsx?$/.test(source)) continue;
      const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
      entries.set(specifier, join(packagesFolder, name, source));
    }
  }
  return entries;
}

function resolveRelative(fromFile: string, specifier: string): string | null {
  const base = resolve(dirname(fromFile), specifier);
  const stem = base.replace(/\.(js|ts|mjs|cjs)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/**
 * Reads every source file under `packages/` and resolves its imports.
 * Specifiers that leave the repository (npm packages, node built-ins) keep
 * their text in `specifiers` but add no edge.
 */
export function readImportGraph(root: string = REPOSITORY_ROOT): Map<string, SourceFile> {
  const entries = packageEntries(root);
  const graph = new Map<string, SourceFile>();
  for (const file of listSourceFiles(join(root, 'packages'))) {
    const text = readSource(file);
    if (text === null) continue;
    const { importedFiles } = ts.preProcessFile(text, true, false);
    const specifiers = importedFiles.map((imported) => imported.fileName);
    const imports = new Set<string>();
    for (const specifier of specifiers) {
      const target = specifier.startsWith('.')
        ? resolveRelative(file, specifier)
        : (entries.get(specifier) ?? null);
      if (target) imports.add(relative(root, target));
    }
    const path = relative(root, file);
    graph.set(path, { path, specifiers, imports: [...imports] });
  }
  return graph;
}

/**
 * The circles of a graph: its strongly connected components with more than
 * one file (or a file that imports itself), each sorted, found with Tarjan's
 * algorithm (iteratively, so a long chain cannot overflow the stack).
 */
export function findCircles(graph: Map<string, SourceFile>): string[][] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  let counter = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    lowest.set(start, counter);
    counter += 1;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node)?.imports ?? [];
      if (frame.next < edges.length) {
        const target = edges[frame.next]!;
        frame.next += 1;
        if (!graph.has(target)) continue;
        if (!index.has(target)) {
          index.set(target, counter);
          lowest.set(target, counter);
          counter += 1;
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          lowest.set(frame.node, Math.min(lowest.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) {
        lowest.set(parent.node, Math.min(lowest.get(parent.node)!, lowest.get(frame.node)!));
      }
      if (lowest.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfImport = graph.get(frame.node)?.imports.includes(frame.node) ?? false;
        if (component.length > 1 || selfImport) circles.push(component.sort());
      }
    }
  }
  return circles;
}

/** One shortest path of imports that closes a circle through `start`, for error messages. */
export function circlePath(graph: Map<string, SourceFile>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of graph.get(node)?.imports ?? []) {
      if (target === start) {
        const path = [start];
        for (let at: string | undefined = node; at && at !== start; at = previous.get(at)) {
          path.splice(1, 0, at);
        }
        return [...path, start];
      }
      if (!previous.has(target) && graph.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start];
}
