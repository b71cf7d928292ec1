import { type ExtensionContext, workspace } from 'vscode';
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

let client: LanguageClient | undefined;

function readSettings(): ExtensionSettings {
  const section = workspace.getConfiguration('airlockRulesLint');
  return {
    files: section.get<string[]>('files') ?? [...DEFAULT_FILES],
    tools: section.get<string>('tools') ?? '',
  };
}

/**
 * Starts the bundled rules-lint language server for rule files and
 * profiles: diagnostics (the nearest rules-lint.config.json(c) honoured),
 * hovers, completion and quick fixes. The JSON Schema is associated by the
 * manifest's `jsonValidation`.
 */
export async function activate(context: ExtensionContext): Promise<void> {
  const settings = readSettings();
  const module = context.asAbsolutePath('dist/server/server.mjs');
  const args = serverArguments(settings);
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.stdio, args },
    debug: { module, transport: TransportKind.stdio, args },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(settings),
    synchronize: {
      fileEvents: workspace.createFileSystemWatcher('**/rules-lint.config.{json,jsonc}'),
    },
  };
  client = new LanguageClient(
    'airlockRulesLint',
    'Airlock rules-lint',
    serverOptions,
    clientOptions,
  );
  context.subscriptions.push(
    workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration('airlockRulesLint') || !client) return;
      await client.stop();
      await activate(context);
    }),
  );
  await client.start();
}

/** Stops the language server. */
export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
