import { resolve } from 'node:path';
import { parseToolCatalog, type ToolCatalog } from '../catalog/tool-catalog.js';
import type { SourceLocation } from '../findings.js';
import { parseDocument, type SourceDocument } from '../source/document.js';
import { readSource } from '../source/read-source.js';
import { UsageError } from './cli-io.js';

/** A file parsed with positions, or the one-line reason it cannot be used. */
export type LoadedDocument =
  | { ok: true; document: SourceDocument }
  | { ok: false; message: string; location?: SourceLocation };

/** Reads and parses a rule file (`path` relative to `cwd`, shown as given). Never throws. */
export async function loadDocument(path: string, cwd: string): Promise<LoadedDocument> {
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
  return parsed;
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
