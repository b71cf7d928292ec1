import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node.js';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { lintText } from '../lint.js';
import { buildDist } from '../testing/build-dist.js';

interface Diagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity: number;
  code: string;
  source: string;
  message: string;
  codeDescription?: { href: string };
}
interface PublishDiagnostics {
  uri: string;
  version?: number;
  diagnostics: Diagnostic[];
}

const uri = 'file:///work/project/agent.rules.jsonc';
const original = `// an agent's rules
[
  {"tool": "write|edit", "path": "path", "match": ".env", "verdict": "deny", "reason": "secrets stay local"},
  {"tool": "bash", "verdict": "deny", "reason": "${'no shell here; '.repeat(20)}"}
]
`;

let server: ChildProcess;
let connection: MessageConnection;
const published: PublishDiagnostics[] = [];
const waiters: ((message: PublishDiagnostics) => void)[] = [];

function nextDiagnostics(): Promise<PublishDiagnostics> {
  return new Promise((resolve) => waiters.push(resolve));
}

beforeAll(async () => {
  const cli = buildDist();
  server = spawn(process.execPath, [cli, 'lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  connection = createMessageConnection(
    new StreamMessageReader(server.stdout!),
    new StreamMessageWriter(server.stdin!),
  );
  connection.onNotification('textDocument/publishDiagnostics', (message: PublishDiagnostics) => {
    published.push(message);
    waiters.shift()?.(message);
  });
  connection.listen();
  const initialized = await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: {},
  });
  expect(initialized).toMatchObject({
    capabilities: {
      codeActionProvider: { codeActionKinds: ['quickfix'] },
      hoverProvider: true,
      completionProvider: { triggerCharacters: ['"'] },
    },
  });
  await connection.sendNotification('initialized', {});
});

afterAll(() => {
  connection?.dispose();
  server?.kill();
});

describe('the language server over stdio', () => {
  let document = TextDocument.create(uri, 'jsonc', 1, original);

  it('publishes on open the same diagnostics as check, with ranges', async () => {
    const received = nextDiagnostics();
    await connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'jsonc', version: 1, text: original },
    });
    const message = await received;
    expect(message.uri).toBe(uri);
    const outcome = lintText('agent.rules.jsonc', original);
    if (!outcome.ok) throw new Error(outcome.message);
    expect(message.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(
      outcome.findings.map((finding) => finding.code),
    );
    expect(message.diagnostics.map((diagnostic) => diagnostic.message)).toEqual(
      outcome.findings.map((finding) => finding.message),
    );
    const fragment = message.diagnostics.find(
      (diagnostic) => diagnostic.code === 'fragment-without-star',
    );
    expect(fragment?.range).toEqual({
      start: { line: 2, character: 50 },
      end: { line: 2, character: 56 },
    });
    expect(fragment?.severity).toBe(2);
    expect(fragment?.source).toBe('rules-lint');
    expect(fragment?.codeDescription?.href).toMatch(/docs\/lint-rules\.md#fragment-without-star$/);
  });

  it('hovers a rule and completes a verdict', async () => {
    const hover = (await connection.sendRequest('textDocument/hover', {
      textDocument: { uri },
      position: { line: 3, character: 5 },
    })) as { contents: { kind: string; value: string } };
    expect(hover.contents.kind).toBe('markdown');
    expect(hover.contents.value).toContain('**rule 1**: deny');
    expect(hover.contents.value).toContain('every call of `bash`, whatever its input');
    const items = (await connection.sendRequest('textDocument/completion', {
      textDocument: { uri },
      position: { line: 3, character: original.split('\n')[3]!.indexOf('"verdict": "') + 12 },
    })) as { label: string }[];
    expect(items.map((item) => item.label)).toEqual(['allow', 'ask', 'deny']);
  });

  it('answers a code action request with a quick fix whose edit applies', async () => {
    const range = { start: { line: 2, character: 53 }, end: { line: 2, character: 53 } };
    const actions = (await connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range,
      context: { diagnostics: [] },
    })) as {
      title: string;
      kind: string;
      edit: { changes: Record<string, { range: Diagnostic['range']; newText: string }[]> };
    }[];
    expect(actions.map((action) => action.title)).toEqual([
      'Add a leading "*": "*.env" (fragment-without-star)',
    ]);
    const [action] = actions;
    expect(action?.kind).toBe('quickfix');
    const edits = action!.edit.changes[uri]!;
    const fixed = TextDocument.applyEdits(document, edits);
    expect(fixed).toContain('"match": "*.env"');

    const received = nextDiagnostics();
    document = TextDocument.create(uri, 'jsonc', 2, fixed);
    await connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: fixed }],
    });
    const message = await received;
    expect(message.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['reason-too-long']);
  });

  it('trims a long reason with the safe fix', async () => {
    const actions = (await connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line: 3, character: 0 }, end: { line: 3, character: 400 } },
      context: { diagnostics: [] },
    })) as {
      title: string;
      isPreferred: boolean;
      edit: { changes: Record<string, { range: Diagnostic['range']; newText: string }[]> };
    }[];
    expect(actions.map((action) => [action.title, action.isPreferred])).toEqual([
      ['Trim the reason to 256 bytes (reason-too-long)', true],
    ]);
    const fixed = TextDocument.applyEdits(document, actions[0]!.edit.changes[uri]!);
    const received = nextDiagnostics();
    await connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 3 },
      contentChanges: [{ text: fixed }],
    });
    expect((await received).diagnostics).toEqual([]);
  });

  it('reports text that is not JSON as one diagnostic, and clears on close', async () => {
    const received = nextDiagnostics();
    await connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 4 },
      contentChanges: [{ text: '[{"tool": ' }],
    });
    const broken = await received;
    expect(broken.diagnostics).toHaveLength(1);
    expect(broken.diagnostics[0]?.code).toBe('invalid_json');
    const cleared = nextDiagnostics();
    await connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
    expect((await cleared).diagnostics).toEqual([]);
  });

  it('shuts down and exits cleanly', async () => {
    const exited = new Promise<number | null>((resolve) =>
      server.on('exit', (code) => resolve(code)),
    );
    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
    expect(await exited).toBe(0);
  });
});
