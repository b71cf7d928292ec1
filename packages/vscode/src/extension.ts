import { type ExtensionContext, type FileSystemWatcher, window, workspace } from 'vscode';
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node.js';
import {
  DEFAULT_FILES,
  documentSelector,
  type ExtensionSettings,
  serverArguments,
} from './server-options.js';
import { SingleClient } from './single-client.js';

let clients: SingleClient<LanguageClient> | undefined;

function readSettings(): ExtensionSettings {
  const section = workspace.getConfiguration('airlockRulesLint');
  return {
    files: section.get<string[]>('files') ?? [...DEFAULT_FILES],
    tools: section.get<string>('tools') ?? '',
  };
}

/** A language client for the bundled server under the current settings, started. */
async function startClient(
  context: ExtensionContext,
  configWatcher: FileSystemWatcher,
): Promise<LanguageClient> {
  const settings = readSettings();
  const module = context.asAbsolutePath('dist/server/server.mjs');
  const args = serverArguments(settings);
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.stdio, args },
    debug: { module, transport: TransportKind.stdio, args },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(settings),
    // A stopped client stops listening to the watcher; the watcher itself is the extension's.
    synchronize: { fileEvents: configWatcher },
  };
  const client = new LanguageClient(
    'airlockRulesLint',
    'Airlock rules-lint',
    serverOptions,
    clientOptions,
  );
  await client.start();
  return client;
}

/**
 * Starts the bundled rules-lint language server for rule files and
 * profiles: diagnostics (the nearest rules-lint.config.json(c) honoured),
 * hovers, completion and quick fixes, and starts it again under new
 * settings when `airlockRulesLint.*` changes. The JSON Schema is associated
 * by the manifest's `jsonValidation`.
 */
export async function activate(context: ExtensionContext): Promise<void> {
  // One watcher for every client: the library never disposes it, so one per restart leaked.
  const configWatcher = workspace.createFileSystemWatcher('**/rules-lint.config.{json,jsonc}');
  context.subscriptions.push(configWatcher);
  const single = new SingleClient(() => startClient(context, configWatcher));
  clients = single;
  // Registered once: a listener per restart would restart once more after each change.
  context.subscriptions.push(
    workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('airlockRulesLint')) return;
      single.restart().catch((error: unknown) => {
        void window.showErrorMessage(
          `Airlock rules-lint did not start: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    }),
  );
  await single.restart();
}

/** Stops the language server. */
export async function deactivate(): Promise<void> {
  await clients?.stop();
  clients = undefined;
}
