import type { Connection, DidOpenTextDocumentParams } from 'vscode-languageserver/node.js';

/**
 * True when a `didOpen` carries what a document needs: a string URI, an
 * integer version (every later lint, request and edit is matched by it) and
 * a string text.
 */
export function isUsableOpen(params: unknown): params is DidOpenTextDocumentParams {
  const textDocument = (params as { textDocument?: unknown } | null | undefined)?.textDocument;
  if (typeof textDocument !== 'object' || textDocument === null) return false;
  const { uri, version, text } = textDocument as {
    uri?: unknown;
    version?: unknown;
    text?: unknown;
  };
  return typeof uri === 'string' && Number.isInteger(version) && typeof text === 'string';
}

/**
 * The connection as `TextDocuments.listen` should see it: a `didOpen` whose
 * URI or text is not a string, or whose version is not an integer, is logged and dropped before the library
 * stores it (the library validates `didChange` but not `didOpen`).
 */
export function guardedConnection(connection: Connection): Connection {
  return new Proxy(connection, {
    get(target, key, receiver) {
      if (key !== 'onDidOpenTextDocument') return Reflect.get(target, key, receiver);
      return (handler: (params: DidOpenTextDocumentParams) => void) =>
        target.onDidOpenTextDocument((params) => {
          if (isUsableOpen(params)) return handler(params);
          target.console.warn(
            'rules-lint: ignored a textDocument/didOpen whose uri, version or text is not usable',
          );
        });
    },
  });
}
