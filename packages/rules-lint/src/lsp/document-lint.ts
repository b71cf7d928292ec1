import { fileURLToPath } from 'node:url';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ToolCatalog } from '../catalog/tool-catalog.js';
import { isInside } from '../cli/contained-path.js';
import { ConfigFinder, type LoadedConfig } from '../config/find-config.js';
import { DEFAULT_CONFIG } from '../config/lint-config.js';
import { findTooDeep } from '../source/parse-json.js';
import { MAX_SOURCE_BYTES, overLimitMessage } from '../source/read-source.js';
import { type AnalysisJob, type AnalysisOutcome, analyseText } from './analyse-text.js';

/** A document linted as `check` would lint its file, with the config it was linted under. */
export interface DocumentLint {
  readonly outcome: AnalysisOutcome;
  /** The tools the file was linted against (for completion). */
  readonly tools: ToolCatalog | undefined;
  /** The config it was linted under (its `mode` for hover), unless none could be used. */
  readonly config?: LoadedConfig;
  /** Why the nearest config could not be used, when it could not (then nothing else is reported). */
  readonly configProblem?: string;
  /** Why the text is not linted at all: it is over the size limit `check` applies to files. */
  readonly sizeProblem?: string;
}

/**
 * Why a document is too large to lint, or undefined. The same limit as
 * `check` on a file, so that an editor's memory stays bounded too.
 */
export function documentTooLarge(text: string): string | undefined {
  const size = Buffer.byteLength(text, 'utf8');
  return size > MAX_SOURCE_BYTES ? `${overLimitMessage(size)}; it is not linted` : undefined;
}

/**
 * The text linted for a document. `check` drops a file's byte order mark; a
 * client that keeps it in the text gets it linted as a space, so the file
 * lints as `check` lints it and every offset still matches the editor's text.
 */
export function lintedText(document: TextDocument): string {
  const text = document.getText();
  return text.startsWith('\uFEFF') ? ` ${text.slice(1)}` : text;
}

/**
 * Whether a document nests deeper than `check` accepts. Its diagnostics say
 * so; hover and completion, which walk the text recursively, leave it alone.
 */
export function nestedTooDeep(document: TextDocument): boolean {
  const text = document.getText();
  // Asked on every hover and completion: a document's text is scanned once while it stays the same.
  if (lastDepthCheck?.text !== text)
    lastDepthCheck = { text, tooDeep: findTooDeep(text) !== undefined };
  return lastDepthCheck.tooDeep;
}
let lastDepthCheck: { readonly text: string; readonly tooDeep: boolean } | undefined;

/** The file path of a `file:` URI, or undefined for an unsaved or remote document. */
export function filePath(uri: string): string | undefined {
  if (typeof uri !== 'string' || !uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** A URI's percent escapes decoded; a malformed escape (`%ZZ`) is kept as written. */
function decodedUri(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The file name an editor document is analysed under, as `check` would
 * name its file: a `file:` URI's path, so that a repository's
 * `.airlock/permissions.json` is checked as a project document; else the
 * URI itself without query or fragment (its ending decides `.jsonc`).
 * Never throws, whatever the URI holds.
 */
export function documentFileName(uri: string): string {
  return filePath(uri) ?? decodedUri(uri.replace(/[?#].*$/s, ''));
}

/** What hover and completion need of a document, known without analysing it. */
export type DocumentContext = Omit<DocumentLint, 'outcome'>;

/**
 * The folder whose files the server may read for a file: the deepest
 * workspace folder holding it (what a command's working folder is to
 * `check`), else the server's own working folder.
 */
function workingFolderOf(path: string, workspaceFolders: readonly string[]): string {
  return workspaceFolderOf(path, workspaceFolders) ?? process.cwd();
}

/** The deepest workspace folder holding a file, if any. */
export function workspaceFolderOf(
  path: string | undefined,
  workspaceFolders: readonly string[],
): string | undefined {
  if (path === undefined) return undefined;
  const holding = workspaceFolders.filter((folder) => isInside(folder, path));
  return holding.sort((a, b) => b.length - a.length)[0];
}

/**
 * The config, tools and size verdict for a document: its file's nearest
 * `rules-lint.config.json(c)` (read again on every call, so edits to the
 * config show at once; never through a link leading out of the file's
 * workspace folder) and the server's `--tools`. Cheap; never throws.
 */
export async function documentContext(
  document: TextDocument,
  cliTools: ToolCatalog | undefined,
  workspaceFolders: readonly string[] = [],
): Promise<DocumentContext> {
  const sizeProblem = documentTooLarge(document.getText());
  if (sizeProblem !== undefined) return { tools: cliTools, sizeProblem };
  const path = filePath(document.uri);
  try {
    const config =
      path === undefined
        ? { ...DEFAULT_CONFIG, tools: undefined }
        : await new ConfigFinder(workingFolderOf(path, workspaceFolders), undefined).forFile(path);
    return { tools: cliTools ?? config.tools, config };
  } catch (error) {
    return { tools: cliTools, configProblem: (error as Error).message };
  }
}

/** Runs the analysis of a text: in place, or on the server's analysis thread; undefined when dropped. */
export type Analyse = (job: AnalysisJob) => Promise<AnalysisOutcome | undefined>;

/**
 * Lints an editor document under its context (see `documentContext`)
 * exactly as `check FILE` does, the analysis going through `analyse`.
 * Undefined when the analysis was dropped (a newer version came). Rejects
 * only when `analyse` does.
 */
export async function lintEditorDocument(
  document: TextDocument,
  context: DocumentContext,
  analyse: Analyse = async (job) => analyseText(job),
): Promise<DocumentLint | undefined> {
  if (context.sizeProblem !== undefined) {
    const location = { offset: 0, length: 0, line: 1, column: 1, endLine: 1, endColumn: 1 };
    return { ...context, outcome: { ok: false, message: context.sizeProblem, location } };
  }
  // A broken config reports only itself, as `check` exits 2 on it.
  if (context.config === undefined) return { ...context, outcome: { ok: true, findings: [] } };
  const outcome = await analyse({
    fileName: documentFileName(document.uri),
    text: lintedText(document),
    config: context.config,
    tools: context.tools,
  });
  return outcome === undefined ? undefined : { ...context, outcome };
}
