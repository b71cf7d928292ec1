import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';
import { type RawLspSession, type RawMessage, startRawLsp } from '../testing/raw-lsp.js';

let cli = '';
const sessions: RawLspSession[] = [];

beforeAll(() => {
  cli = buildDist();
});

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

async function start(): Promise<RawLspSession> {
  const session = await startRawLsp(cli);
  sessions.push(session);
  return session;
}

/**
 * One server for every case that leaves it running (a start costs about a
 * second): each case speaks of documents of its own and reads only the
 * messages that came after it began, so none sees another's.
 */
let served: Promise<RawLspSession> | undefined;
let cases = 0;

afterAll(async () => {
  (await served)?.kill();
});

/** The shared server, a uri no other case names, and the messages since this call. */
async function sharedServer() {
  served ??= startRawLsp(cli);
  const session = await served;
  cases += 1;
  const from = session.messages.length;
  return {
    session,
    uri: `file:///nowhere/agent-${cases}.rules.json`,
    since: (): RawMessage[] => session.messages.slice(from),
  };
}

/** Sends a valid open of a document no case named before and resolves with whether its diagnostics were published. */
async function lintsAfterwards(session: RawLspSession): Promise<boolean> {
  cases += 1;
  const good = `file:///nowhere/good-${cases}.rules.json`;
  session.send({
    jsonrpc: '2.0',
    method: 'textDocument/didOpen',
    params: { textDocument: { uri: good, languageId: 'json', version: 1, text: '[]' } },
  });
  const published = await session.waitFor(
    (message) =>
      message.method === 'textDocument/publishDiagnostics' &&
      (message.params as { uri: string }).uri === good,
  );
  return published !== undefined;
}

/** Stands for the case's own uri in the rows below. */
const URI = 'the case uri';
const withUri = (textDocument: Record<string, unknown> | undefined, uri: string) =>
  textDocument && textDocument.uri === URI ? { ...textDocument, uri } : textDocument;

describe('the language server on malformed notifications', () => {
  it.each([
    ['a number as uri', { uri: 5, languageId: 'json', version: 1, text: '[]' }],
    ['null as text', { uri: URI, languageId: 'json', version: 1, text: null }],
    ['a number as text', { uri: URI, languageId: 'json', version: 1, text: 42 }],
    ['no text', { uri: URI, languageId: 'json', version: 1 }],
    ['no textDocument', undefined],
  ])('survives a didOpen with %s and keeps linting', async (_label, textDocument) => {
    const { session, uri } = await sharedServer();
    session.send({
      jsonrpc: '2.0',
      method: 'textDocument/didOpen',
      params: { textDocument: withUri(textDocument, uri) },
    });
    session.send({
      jsonrpc: '2.0',
      method: 'textDocument/didChange',
      params: { textDocument: { uri, version: 2 }, contentChanges: [{ text: 7 }] },
    });
    expect(await lintsAfterwards(session)).toBe(true);
    expect(session.child.exitCode).toBeNull();
    expect(session.stderr()).not.toMatch(/\n\s+at /);
  });
  it.each([
    [
      'no version',
      { uri: URI, languageId: 'json', text: '[{"tool": "bash", "verdict": "allow"}]' },
    ],
    ['a string as version', { uri: URI, languageId: 'json', version: 'one', text: '[]' }],
  ])(
    'drops a didOpen with %s instead of failing every request on it',
    async (_label, textDocument) => {
      const { session, uri, since } = await sharedServer();
      const hoverId = `hover-${uri}`;
      session.send({
        jsonrpc: '2.0',
        method: 'textDocument/didOpen',
        params: { textDocument: withUri(textDocument, uri) },
      });
      session.send({
        jsonrpc: '2.0',
        id: hoverId,
        method: 'textDocument/hover',
        params: { textDocument: { uri }, position: { line: 0, character: 3 } },
      });
      const hover = await session.waitFor((message) => message.id === hoverId);
      expect(hover).toMatchObject({ result: null });
      expect(await lintsAfterwards(session)).toBe(true);
      const logs = since()
        .filter((message) => message.method === 'window/logMessage')
        .map((message) => (message.params as { message: string }).message);
      expect(logs).toEqual([
        'rules-lint: ignored a textDocument/didOpen whose uri, version or text is not usable',
      ]);
      const published = since().filter(
        (message) =>
          message.method === 'textDocument/publishDiagnostics' &&
          (message.params as { uri: string }).uri === uri,
      );
      expect(published).toEqual([]);
    },
  );
});

describe('the language server when its input ends or breaks', () => {
  it.each([
    ['after a whole message', ''],
    ['in the middle of a frame', 'Content-Length: 100\r\n\r\n{"jsonrpc"'],
  ])('exits when stdin closes %s', async (_label, bytes) => {
    const session = await start();
    if (bytes) session.write(bytes);
    await new Promise((resolve) => setTimeout(resolve, 100));
    session.child.stdin!.end();
    expect(await session.exited(5_000)).toBe(1);
  });

  it.each([
    ['Content-Length: abc', 'Content-Length: abc\r\n\r\n{}'],
    ['no Content-Length', 'Content-Type: application/vscode-jsonrpc\r\n\r\n{}'],
    ['Content-Length: -5', 'Content-Length: -5\r\n\r\n'],
  ])('says why and exits on a header with %s', async (_label, bytes) => {
    const session = await start();
    session.write(bytes);
    expect(await session.exited(5_000)).toBe(1);
    const logged = session.messages.find((message) => message.method === 'window/logMessage');
    expect(logged?.params).toMatchObject({ message: expect.stringMatching(/not framed as LSP/) });
    expect(session.stderr()).toMatch(/^rules-lint lsp: the input is not framed as LSP messages/);
    expect(session.stderr().trim().split('\n')).toHaveLength(1);
  });

  it('stops without a stack trace when the client closes the server output', async () => {
    const session = await start();
    const uri = 'file:///nowhere/agent.rules.json';
    session.child.stdout!.destroy();
    for (let version = 1; version <= 20; version += 1) {
      session.send({
        jsonrpc: '2.0',
        method: 'textDocument/didOpen',
        params: {
          textDocument: { uri: `${uri}${version}`, languageId: 'json', version, text: '[]' },
        },
      });
      session.send({ jsonrpc: '2.0', id: version, method: 'no/such-method' });
      session.send({ jsonrpc: '2.0', method: 'textDocument/didClose' });
    }
    expect(await session.exited(5_000)).toBe(1);
    expect(session.stderr()).not.toMatch(/\n\s+at /);
  });

  it('skips a well-framed body that is not JSON and keeps serving', async () => {
    const { session } = await sharedServer();
    session.write('Content-Length: 8\r\n\r\nnot json');
    expect(await lintsAfterwards(session)).toBe(true);
    expect(session.child.exitCode).toBeNull();
  });
});

describe('the language server on a document over the size limit', () => {
  it('publishes one file_too_large diagnostic and lints nothing else', async () => {
    const { session, uri: big } = await sharedServer();
    // Valid JSON whose rule would be reported (unknown verdict) if it were linted.
    const text = `[{"tool": "bash", "verdict": "maybe"}${' '.repeat(4 * 1024 * 1024)}]`;
    session.send({
      jsonrpc: '2.0',
      method: 'textDocument/didOpen',
      params: { textDocument: { uri: big, languageId: 'json', version: 1, text } },
    });
    const published = await session.waitFor(
      (message) =>
        message.method === 'textDocument/publishDiagnostics' &&
        (message.params as { uri: string }).uri === big,
    );
    expect(published?.params).toMatchObject({
      diagnostics: [
        {
          code: 'file_too_large',
          message: expect.stringMatching(/^4\.0 MiB is over the 4\.0 MiB limit for a rule file/),
        },
      ],
    });
    session.send({
      jsonrpc: '2.0',
      id: 'hover-big',
      method: 'textDocument/hover',
      params: { textDocument: { uri: big }, position: { line: 0, character: 3 } },
    });
    const hover = await session.waitFor((message) => message.id === 'hover-big');
    expect(hover).toMatchObject({ result: null });
  });
});

describe('the language server on a burst of edits', () => {
  it('publishes the current version last, never an older one after it, after a burst of edits', async () => {
    const { session, uri: edited } = await sharedServer();
    const frames = [
      {
        jsonrpc: '2.0',
        method: 'textDocument/didOpen',
        params: { textDocument: { uri: edited, languageId: 'json', version: 1, text: '[]' } },
      },
      ...[2, 3, 4].map((version) => ({
        jsonrpc: '2.0',
        method: 'textDocument/didChange',
        params: {
          textDocument: { uri: edited, version },
          contentChanges: [{ text: `[${' '.repeat(version)}]` }],
        },
      })),
    ];
    session.write(
      frames
        .map((frame) => {
          const body = JSON.stringify(frame);
          return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
        })
        .join(''),
    );
    const isPublish = (message: { method?: string; params?: unknown }) =>
      message.method === 'textDocument/publishDiagnostics' &&
      (message.params as { uri: string }).uri === edited;
    const versionOf = (message: { params?: unknown }) =>
      (message.params as { version?: number }).version;
    await session.waitFor((message) => isPublish(message) && versionOf(message) === 4);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // How many versions a burst skips depends on when its frames arrive (all at once here, but a
    // busy machine may hand the server the first alone); what never happens is diagnostics of an
    // older version published after a newer one's, or the current version left unlinted.
    const versions = session.messages.filter(isPublish).map(versionOf);
    expect(versions.at(-1)).toBe(4);
    expect(versions).toEqual([...versions].sort((a, b) => (a ?? 0) - (b ?? 0)));
    expect(new Set(versions).size).toBe(versions.length);
  });
});
