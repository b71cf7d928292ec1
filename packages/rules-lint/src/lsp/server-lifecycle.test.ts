import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../testing/build-dist.js';
import { type RawLspSession, startRawLsp } from '../testing/raw-lsp.js';

let cli = '';
const sessions: RawLspSession[] = [];

beforeAll(() => {
  cli = buildDist();
});

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

const uri = 'file:///nowhere/agent.rules.json';
const hover = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'textDocument/hover',
  params: { textDocument: { uri }, position: { line: 0, character: 3 } },
});

/** The answer to request `id`. */
async function answer(session: RawLspSession, id: number) {
  return (await session.waitFor((message) => message.id === id && message.method === undefined)) as
    | { result?: unknown; error?: { code: number; message: string } }
    | undefined;
}

// Each test starts the server (10 s and more on a loaded 2-core machine, where one test's
// initialize answer missed a 10 s wait in fresh-clone CI beside other jobs).
describe('the language server answers as the LSP lifecycle says', { timeout: 90_000 }, () => {
  it('refuses requests before initialize with ServerNotInitialized, then serves once initialized', async () => {
    const session = await startRawLsp(cli, { initialize: false });
    sessions.push(session);
    session.send(hover(1));
    session.send({ jsonrpc: '2.0', id: 2, method: 'no/such-method', params: {} });
    expect((await answer(session, 1))?.error?.code).toBe(-32002);
    expect((await answer(session, 2))?.error?.code).toBe(-32002);

    session.send({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { capabilities: {} } });
    expect((await answer(session, 3))?.result).toMatchObject({
      serverInfo: { name: 'rules-lint' },
    });
    session.send({ jsonrpc: '2.0', method: 'initialized', params: {} });
    session.send({
      jsonrpc: '2.0',
      method: 'textDocument/didOpen',
      params: {
        textDocument: {
          uri,
          languageId: 'json',
          version: 1,
          text: '[{"tool": "bash", "verdict": "deny"}]',
        },
      },
    });
    session.send(hover(4));
    expect((await answer(session, 4))?.result).toMatchObject({
      contents: { value: expect.stringContaining('**rule 0**: deny') },
    });
    session.send({ jsonrpc: '2.0', id: 5, method: 'no/such-method', params: {} });
    expect((await answer(session, 5))?.error?.code).toBe(-32601);
  });

  it('drops notifications that come before initialize, all but exit', async () => {
    const session = await startRawLsp(cli, { initialize: false });
    sessions.push(session);
    const early = 'file:///nowhere/early.rules.json';
    const open = (at: string) => ({
      jsonrpc: '2.0',
      method: 'textDocument/didOpen',
      params: {
        textDocument: {
          uri: at,
          languageId: 'json',
          version: 1,
          text: '[{"tool": "bash", "verdict": "deny"}]',
        },
      },
    });
    const publishedFor = (at: string) => (message: { method?: string; params?: unknown }) =>
      message.method === 'textDocument/publishDiagnostics' &&
      (message.params as { uri: string }).uri === at;
    session.send(open(early));
    session.send({ jsonrpc: '2.0', method: 'initialized', params: {} });
    session.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {} } });
    expect((await answer(session, 1))?.result).toMatchObject({
      serverInfo: { name: 'rules-lint' },
    });
    session.send({ jsonrpc: '2.0', method: 'initialized', params: {} });
    session.send(open(uri));
    expect(await session.waitFor(publishedFor(uri))).toBeDefined();

    // The early document was never opened: no diagnostics, no hover; the log says why.
    expect(session.messages.some(publishedFor(early))).toBe(false);
    session.send({ ...hover(2), params: { ...hover(2).params, textDocument: { uri: early } } });
    expect(await answer(session, 2)).toMatchObject({ result: null });
    const logged = session.messages
      .filter((message) => message.method === 'window/logMessage')
      .map((message) => (message.params as { message: string }).message);
    expect(logged).toEqual([
      'rules-lint: ignored textDocument/didOpen before initialize',
      'rules-lint: ignored initialized before initialize',
    ]);
    session.send(hover(3));
    expect((await answer(session, 3))?.result).toMatchObject({
      contents: { value: expect.stringContaining('**rule 0**: deny') },
    });
  });

  it('exits on an exit notification before initialize, with 1 (no shutdown came)', async () => {
    const session = await startRawLsp(cli, { initialize: false });
    sessions.push(session);
    session.send({ jsonrpc: '2.0', method: 'exit' });
    expect(await session.exited(20_000)).toBe(1);
  });

  it('refuses requests after shutdown with InvalidRequest, and exits 0 on exit', async () => {
    const session = await startRawLsp(cli);
    sessions.push(session);
    session.send({ jsonrpc: '2.0', id: 1, method: 'shutdown' });
    expect(await answer(session, 1)).toMatchObject({ result: null });
    session.send(hover(2));
    expect((await answer(session, 2))?.error?.code).toBe(-32600);
    session.send({ jsonrpc: '2.0', method: 'exit' });
    expect(await session.exited(20_000)).toBe(0);
  });

  it('starts as vscode-languageclient starts it, with --clientProcessId appended, and refuses a bad one', async () => {
    const session = await startRawLsp(cli, {
      initialize: false,
      args: [`--clientProcessId=${process.pid}`],
    });
    sessions.push(session);
    session.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {} } });
    expect((await answer(session, 1))?.result).toMatchObject({
      serverInfo: { name: 'rules-lint' },
    });

    const bad = await startRawLsp(cli, { initialize: false, args: ['--clientProcessId', 'abc'] });
    sessions.push(bad);
    expect(await bad.exited(20_000)).toBe(2);
    expect(bad.stderr()).toMatch(/--clientProcessId must be a process id/);
  });

  it('answers a document request without a usable uri, position or range with InvalidParams', async () => {
    const session = await startRawLsp(cli);
    sessions.push(session);
    const requests = [
      ['textDocument/hover', {}],
      ['textDocument/hover', { textDocument: { uri } }],
      [
        'textDocument/completion',
        { textDocument: { uri: 5 }, position: { line: 0, character: 0 } },
      ],
      ['textDocument/codeAction', { textDocument: { uri }, range: { start: { line: 0 } } }],
    ] as const;
    for (const [index, [method, params]] of requests.entries())
      session.send({ jsonrpc: '2.0', id: index + 1, method, params });
    for (let id = 1; id <= requests.length; id += 1)
      expect((await answer(session, id))?.error?.code).toBe(-32602);
    expect(session.child.exitCode).toBeNull();
  });
});
