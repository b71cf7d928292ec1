import {
  CodeActionKind,
  type CodeActionParams,
  type CompletionParams,
  createConnection,
  DidChangeWatchedFilesNotification,
  ErrorCodes,
  type HoverParams,
  MarkupKind,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocumentSyncKind,
  TextDocuments,
} from 'vscode-languageserver/node.js';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { ToolCatalog } from '../catalog/tool-catalog.js';
import { CONFIG_NAMES } from '../config/find-config.js';
import { AnalysisThread } from './analysis-thread.js';
import { quickFixes } from './code-actions.js';
import { completions } from './completion.js';
import {
  configProblemDiagnostic,
  outcomeDiagnostics,
  sizeProblemDiagnostic,
} from './diagnostics.js';
import { guardedConnection } from './document-guard.js';
import {
  documentContext,
  filePath,
  lintEditorDocument,
  nestedTooDeep,
  workspaceFolderOf,
} from './document-lint.js';
import { ruleHover } from './hover.js';
import { initializeFirst } from './initialize-first.js';
import { Lifecycle } from './lifecycle.js';
import { LintCache } from './lint-cache.js';
import { watchTransportEnd } from './transport-end.js';
import { changedWorkspaceFolders, initialWorkspaceFolders } from './workspace-folders.js';

/** How long a document must be still after an edit before it is linted: one lint per burst of typing. */
const LINT_DELAY_MS = 75;

/** Options of the language server. */
export interface LanguageServerOptions {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Tools from `rules-lint lsp --tools CATALOG.json`. */
  readonly tools?: ToolCatalog;
  /** Where a reason to stop goes besides the LSP log (stderr), so it is seen when the client is gone. */
  readonly log?: (line: string) => void;
}

/**
 * Serves the Language Server Protocol over the given streams: on open and
 * on every change it publishes the diagnostics `check` would print for the
 * file, under its nearest `rules-lint.config.json(c)` (each with a link to
 * its docs), answers code action requests with the lint
 * rules' quick fixes, hovers a rule with what it matches, its outcome under
 * each mode and what shadows it, and completes keys, verdicts, origins,
 * modes and known tool names. Resolves with the exit code when the client
 * sends `exit`, when the input ends (1 unless `shutdown` came first), or
 * when a malformed header makes the input unreadable (1, with a reason in
 * the LSP log and `log`).
 */
export function startLanguageServer(options: LanguageServerOptions): Promise<number> {
  const reader = new StreamMessageReader(options.input);
  const writer = new StreamMessageWriter(options.output);
  const connection = createConnection(
    initializeFirst(reader, (method) =>
      toClient(() => connection.console.warn(`rules-lint: ignored ${method} before initialize`)),
    ),
    writer,
  );
  const documents = new TextDocuments(TextDocument);
  const lifecycle = new Lifecycle();
  const analyses = new AnalysisThread();
  const isCurrent = (uri: string, version: number) => documents.get(uri)?.version === version;
  // Bumped when configs or workspace folders change: every analysis begun before is stale then.
  let settingsGeneration = 0;
  const lints = new LintCache(
    (document, context) => {
      const version = document.version;
      const generation = settingsGeneration;
      return lintEditorDocument(document, context, (job) =>
        analyses.analyse(
          job,
          () => isCurrent(document.uri, version) && generation === settingsGeneration,
        ),
      );
    },
    (document) => documentContext(document, options.tools, workspaceFolders),
  );

  let watchConfigs = false;
  let followFolders = false;
  let workspaceFolders: string[] = [];
  connection.onInitialize((params) => {
    lifecycle.initialized = true;
    workspaceFolders = initialWorkspaceFolders(params);
    watchConfigs =
      params.capabilities?.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    followFolders = params.capabilities?.workspace?.workspaceFolders === true;
    return {
      capabilities: {
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
        textDocumentSync: TextDocumentSyncKind.Incremental,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        hoverProvider: true,
        completionProvider: { triggerCharacters: ['"'] },
      },
      serverInfo: { name: 'rules-lint' },
    };
  });
  connection.onInitialized(() => {
    // A folder added to the workspace after start-up: its files may read their configs now, and
    // a removed folder's may not; every open document is linted again under the new folders.
    if (followFolders) {
      connection.workspace.onDidChangeWorkspaceFolders((event) => {
        workspaceFolders = changedWorkspaceFolders(workspaceFolders, event);
        relintAll();
      });
    }
    if (!watchConfigs) return;
    connection.client
      .register(DidChangeWatchedFilesNotification.type, {
        watchers: CONFIG_NAMES.map((name) => ({ globPattern: `**/${name}` })),
      })
      .catch(() =>
        toClient(() => connection.console.warn('rules-lint: the client did not watch the configs')),
      );
  });

  // Edits come in bursts: each document is linted once it has been still for a moment, and
  // an analysis a newer version made stale is stopped rather than finished.
  const scheduled = new Map<string, NodeJS.Timeout>();
  const opened = new Set<string>();
  documents.onDidOpen(({ document }) => opened.add(document.uri));
  documents.onDidChangeContent(({ document }) => {
    // A document just opened is linted at once; edits wait for the burst to end.
    const delay = opened.delete(document.uri) ? 0 : LINT_DELAY_MS;
    analyses.dropStale();
    clearTimeout(scheduled.get(document.uri));
    scheduled.set(
      document.uri,
      setTimeout(() => {
        scheduled.delete(document.uri);
        lintInBackground(document);
      }, delay),
    );
  });
  function lintInBackground(document: TextDocument): void {
    // An event handler's rejection would end the process: every failure becomes one log line.
    publishDiagnostics(document).catch((error: unknown) =>
      toClient(() =>
        connection.console.error(
          `rules-lint: could not lint ${document.uri}: ${error instanceof Error ? error.message : String(error)}`,
        ),
      ),
    );
  }
  async function publishDiagnostics(document: TextDocument): Promise<void> {
    const version = document.version;
    if (!isCurrent(document.uri, version)) return;
    const linted = await lints.get(document);
    // Only the current version's diagnostics are ever published: a stale one never follows a newer one.
    if (linted === undefined || !isCurrent(document.uri, version)) return;
    const diagnostics =
      linted.sizeProblem !== undefined
        ? [sizeProblemDiagnostic(linted.sizeProblem)]
        : linted.configProblem !== undefined
          ? [configProblemDiagnostic(linted.configProblem)]
          : outcomeDiagnostics(document, linted.outcome);
    await connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics });
  }
  // A config or its tool catalog changed on disk (the VS Code extension watches configs, and
  // clients that can are asked to below): every open document may lint differently now.
  connection.onDidChangeWatchedFiles(() => relintAll());
  function relintAll(): void {
    // A burst of changes (a checkout, a config saved as it is typed) analyses each document once.
    settingsGeneration += 1;
    analyses.dropStale();
    lints.clear();
    for (const document of documents.all()) lintInBackground(document);
  }
  documents.onDidClose(({ document }) => {
    clearTimeout(scheduled.get(document.uri));
    scheduled.delete(document.uri);
    lints.forget(document.uri);
    analyses.dropStale();
    toClient(() => connection.sendDiagnostics({ uri: document.uri, diagnostics: [] }));
  });

  connection.onCodeAction(
    lifecycle.gate('textDocument/codeAction', 'range', async (params: CodeActionParams) => {
      const document = documents.get(params.textDocument.uri);
      if (!document) return [];
      const linted = await lints.get(document);
      if (!linted) return [];
      const folder = workspaceFolderOf(filePath(document.uri), workspaceFolders);
      return quickFixes(document, linted.outcome, params.range, folder);
    }),
  );

  connection.onHover(
    lifecycle.gate('textDocument/hover', 'position', async (params: HoverParams) => {
      const document = documents.get(params.textDocument.uri);
      if (!document) return null;
      // The lint's config: the table marks the mode the diagnostics were computed under.
      const { config, sizeProblem } = await lints.contextOf(document);
      if (sizeProblem !== undefined || nestedTooDeep(document)) return null;
      const value = ruleHover(document.getText(), document.offsetAt(params.position), config);
      return value === undefined ? null : { contents: { kind: MarkupKind.Markdown, value } };
    }),
  );

  connection.onCompletion(
    lifecycle.gate('textDocument/completion', 'position', async (params: CompletionParams) => {
      const document = documents.get(params.textDocument.uri);
      if (!document) return [];
      const { tools, sizeProblem } = await lints.contextOf(document);
      if (sizeProblem !== undefined) return [];
      if (nestedTooDeep(document)) return null;
      return completions(document, document.offsetAt(params.position), tools);
    }),
  );

  // Methods the server has no handler for: MethodNotFound, unless the lifecycle refuses first.
  connection.onRequest(
    (method) =>
      lifecycle.refusal(method) ??
      new ResponseError(ErrorCodes.MethodNotFound, `rules-lint: no method ${method}`),
  );

  connection.onShutdown(() => {
    lifecycle.shutdownRequested = true;
  });

  const stopped = new Promise<number>((resolve) => {
    // The client closed the server's output: nothing can be answered any more, so stop.
    writer.onError(() => resolve(1));
    writer.onClose(() => resolve(1));
    connection.onExit(() => resolve(lifecycle.shutdownRequested ? 0 : 1));
    watchTransportEnd({
      input: options.input,
      reader,
      onBadMessage: (reason) =>
        toClient(() => connection.console.warn(`rules-lint: ignored input: ${reason}`)),
      onEnd: (reason) => {
        if (reason === undefined) {
          resolve(lifecycle.shutdownRequested ? 0 : 1);
          return;
        }
        toClient(() => connection.console.error(`rules-lint: ${reason}`));
        options.log?.(`rules-lint lsp: ${reason}\n`);
        // The writer encodes asynchronously: let the log message reach the output first.
        setTimeout(() => resolve(1), 50);
      },
    });
    documents.listen(guardedConnection(connection));
    connection.listen();
  });
  return stopped.finally(() => analyses.close());
}

/**
 * Sends something to the client, if it is still there. Once the client has
 * closed the server's output, the library throws (or rejects) on every send;
 * that must not end the process with a stack trace while the input is still
 * being read (the server ends when its input ends).
 */
function toClient(send: () => unknown): void {
  try {
    const sent = send();
    if (sent instanceof Promise) sent.catch(() => undefined);
  } catch {
    // The output is gone: there is no one left to tell.
  }
}
