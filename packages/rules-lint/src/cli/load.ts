import { resolve } from 'node:path';
import { parseToolCatalog, type ToolCatalog } from '../catalog/tool-catalog.js';
import type { SourceLocation } from '../findings.js';
import { parseDocument, type SourceDocument } from '../source/document.js';
import { decodeSource, MAX_SOURCE_BYTES, readSource } from '../source/read-source.js';
import { type CliIo, UsageError } from './cli-io.js';
import { readRefusal } from './contained-path.js';

/**
 * A file parsed with positions (and the byte order mark it starts with, if
 * any, which the text leaves out), or the one-line reason it cannot be used.
 */
export type LoadedDocument =
  | { ok: true; document: SourceDocument; byteOrderMark: string }
  | { ok: false; message: string; location?: SourceLocation };

/**
 * Reads and parses a rule file (`path` relative to `cwd`, shown as given),
 * unless a link leads it out of the working folder (its target could land in
 * CI logs). Every file rules-lint reads comes through here. Never throws.
 */
export async function loadDocument(path: string, cwd: string): Promise<LoadedDocument> {
  const refusal = readRefusal(path, cwd);
  if (refusal !== undefined) return { ok: false, message: refusal };
  const source = await readSource(resolve(cwd, path));
  if (!source.ok) return { ok: false, message: source.message.replace(resolve(cwd, path), path) };
  const parsed = parseDocument(path, source.text);
  if (!parsed.ok) {
    return {
      ok: false,
      message: `${path}:${parsed.location.line}:${parsed.location.column}: ${parsed.message}`,
      location: parsed.location,
    };
  }
  return { ...parsed, byteOrderMark: source.byteOrderMark };
}

/** Loads a document or throws a UsageError with its one-line reason. */
export async function requireDocument(path: string, cwd: string): Promise<SourceDocument> {
  const loaded = await loadDocument(path, cwd);
  if (!loaded.ok) throw new UsageError(loaded.message);
  return loaded.document;
}

/** Loads `--tools CATALOG.json`, or throws a UsageError. */
export async function loadToolCatalog(
  path: string | undefined,
  cwd: string,
): Promise<ToolCatalog | undefined> {
  if (path === undefined) return undefined;
  const document = await requireDocument(path, cwd);
  const catalog = parseToolCatalog(document.value);
  if (!catalog.ok) throw new UsageError(`${path}: ${catalog.message}`);
  return catalog.catalog;
}

/**
 * Loads a FILE argument: a path, or `-` for standard input shown (and
 * treated, for `.jsonc` comments and config lookup) as `stdinName`. Never
 * throws except UsageError when standard input cannot be read here.
 */
export async function loadInput(
  file: string,
  io: CliIo,
  stdinName: string,
): Promise<LoadedDocument> {
  if (file !== '-') return loadDocument(file, io.cwd);
  if (!io.readStdin) throw new UsageError('standard input is not available here');
  const source = decodeSource(stdinName, await io.readStdin(MAX_SOURCE_BYTES));
  if (!source.ok) return { ok: false, message: source.message };
  const parsed = parseDocument(stdinName, source.text);
  if (!parsed.ok) {
    return {
      ok: false,
      message: `${stdinName}:${parsed.location.line}:${parsed.location.column}: ${parsed.message}`,
      location: parsed.location,
    };
  }
  return { ...parsed, byteOrderMark: source.byteOrderMark };
}
