import { fileURLToPath } from 'node:url';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ToolCatalog } from '../catalog/tool-catalog.js';
import { fileLinter, withCustomRuleSets } from '../check-file.js';
import { ConfigFinder, type LoadedConfig } from '../config/find-config.js';
import { DEFAULT_CONFIG } from '../config/lint-config.js';
import type { LintOutcome } from '../lint.js';
import { readRuleFile } from '../rule-file.js';
import { parseDocument } from '../source/document.js';
import { MAX_SOURCE_BYTES, overLimitMessage } from '../source/read-source.js';
import { documentFileName } from './diagnostics.js';

/** A document linted as `check` would lint its file, with the config it was linted under. */
export interface DocumentLint {
  readonly outcome: LintOutcome;
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
function lintedText(document: TextDocument): string {
  const text = document.getText();
  return text.startsWith('\uFEFF') ? ` ${text.slice(1)}` : text;
}

/** The file path of a `file:` URI, or undefined for an unsaved or remote document. */
function filePath(uri: string): string | undefined {
  if (typeof uri !== 'string' || !uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/**
 * Lints an editor document under the nearest `rules-lint.config.json(c)`
 * of its file (read again on every call, so edits to the config show at
 * once) and the server's `--tools`, exactly as `check FILE` does. Never throws.
 */
export async function lintEditorDocument(
  document: TextDocument,
  cliTools: ToolCatalog | undefined,
): Promise<DocumentLint> {
  const sizeProblem = documentTooLarge(document.getText());
  if (sizeProblem !== undefined) {
    const location = { offset: 0, length: 0, line: 1, column: 1, endLine: 1, endColumn: 1 };
    return { outcome: { ok: false, message: sizeProblem, location }, tools: cliTools, sizeProblem };
  }
  const path = filePath(document.uri);
  let config: LoadedConfig = { ...DEFAULT_CONFIG, tools: undefined };
  try {
    if (path !== undefined) config = await new ConfigFinder(process.cwd(), undefined).forFile(path);
  } catch (error) {
    const parsed = parseDocument(documentFileName(document.uri), lintedText(document));
    const outcome: LintOutcome = parsed.ok
      ? {
          ok: true,
          document: parsed.document,
          file: readRuleFile(parsed.document.value),
          findings: [],
        }
      : parsed;
    return { outcome, tools: cliTools, configProblem: (error as Error).message };
  }
  const tools = cliTools ?? config.tools;
  const parsed = parseDocument(documentFileName(document.uri), lintedText(document));
  if (!parsed.ok) return { outcome: parsed, tools, config };
  const source = parsed.document;
  const findings = withCustomRuleSets(source, fileLinter(source, { config, tools })(source));
  return {
    outcome: { ok: true, document: source, file: readRuleFile(source.value), findings },
    tools,
    config,
  };
}
