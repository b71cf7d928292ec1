import {
  CodeActionKind,
  createConnection,
  MarkupKind,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocumentSyncKind,
  TextDocuments,
} from 'vscode-languageserver/node.js';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { ToolCatalog } from '../catalog/tool-catalog.js';
import type { LintOptions } from '../lint.js';
import { quickFixes } from './code-actions.js';
import { completions } from './completion.js';
import { lintTextDocument, outcomeDiagnostics } from './diagnostics.js';
import { ruleHover } from './hover.js';

/** Options of the language server. */
export interface LanguageServerOptions {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Tools from `rules-lint lsp --tools CATALOG.json`. */
  readonly tools?: ToolCatalog;
}

/**
 * Serves the Language Server Protocol over the given streams: on open and
 * on every change it publishes the diagnostics `check` would print (each
 * with a link to its docs), answers code action requests with the lint
 * rules' quick fixes, hovers a rule with what it matches, its outcome under
 * each mode and what shadows it, and completes keys, verdicts, origins,
 * modes and known tool names. Resolves
 * when the client sends `exit`.
 */
export function startLanguageServer(options: LanguageServerOptions): Promise<number> {
  const connection = createConnection(
    new StreamMessageReader(options.input),
    new StreamMessageWriter(options.output),
  );
  const documents = new TextDocuments(TextDocument);
  const lintOptions: LintOptions = options.tools ? { tools: options.tools } : {};
  let shutdownRequested = false;

  connection.onInitialize(() => ({
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      hoverProvider: true,
      completionProvider: { triggerCharacters: ['"'] },
    },
    serverInfo: { name: 'rules-lint' },
  }));

  documents.onDidChangeContent(({ document }) => {
    const diagnostics = outcomeDiagnostics(document, lintTextDocument(document, lintOptions));
    void connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics });
  });
  documents.onDidClose(({ document }) => {
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
  });

  connection.onCodeAction((params) => {
    const document = documents.get(params.textDocument.uri);
    if (!document) return [];
    return quickFixes(document, lintTextDocument(document, lintOptions), params.range);
  });

  connection.onHover((params) => {
    const document = documents.get(params.textDocument.uri);
    if (!document) return null;
    const value = ruleHover(document.getText(), document.offsetAt(params.position));
    return value === undefined ? null : { contents: { kind: MarkupKind.Markdown, value } };
  });

  connection.onCompletion((params) => {
    const document = documents.get(params.textDocument.uri);
    if (!document) return [];
    return completions(document.getText(), document.offsetAt(params.position), options.tools);
  });

  connection.onShutdown(() => {
    shutdownRequested = true;
  });

  return new Promise((resolve) => {
    connection.onExit(() => resolve(shutdownRequested ? 0 : 1));
    documents.listen(connection);
    connection.listen();
  });
}
