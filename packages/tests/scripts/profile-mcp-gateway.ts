/*
 * Where a granted MCP call's time goes through gateway, kernel and bridge: runs the same granted
 * `read_text_file` as bench-mcp-gateway.ts, all in one process, and stamps every HTTP request
 * (client side: undici's and node:http's diagnostics channels; server side: node:http's) and every WebSocket
 * message (ws) against the call's start. Prints the median timeline of one call.
 * Run: pnpm --filter @airlock/tests profile:mcp   (CALLS=60 by default)
 */
import { subscribe } from 'node:diagnostics_channel';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KernelApi, startGateway } from '@airlock/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocket } from 'ws';
import { startTestKernel } from '../src/support/kernel.js';

const CALLS = Number(process.env.CALLS ?? 60);

interface Mark {
  at: number;
  label: string;
}
let marks: Mark[] | null = null;
const mark = (label: string) => marks?.push({ at: performance.now(), label });

/**
 * A request's path as a label: ids stand as `:id`, and an executor operation is named alike on
 * its REST route (what the SDK sends a write over) and as a tRPC procedure (`executor.claim`).
 */
const pathOf = (raw: string) =>
  raw
    .replace(/\?.*$/, '')
    .replace(
      /^\/executor_api\/v1\/runs\/[^/]+\/tasks\/[^/]+\/(claim|commit|heartbeat)$/,
      'executor.$1',
    )
    .replace(/^\/executor_api\/v1\/claim$/, 'executor.claimNext')
    .replace(/^\/trpc\/(executor\.[A-Za-z]+)$/, '$1')
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}|run_[A-Za-z0-9_-]+|[A-Z0-9]{26}/g, ':id');
const clientRequests = new WeakMap<object, string>();
// Client requests: fetch's (undici) and node:http's (the SDK's own in Node, internal/node-http.ts),
// each channel pair the request's start and its answer's headers.
for (const [started, answered] of [
  ['undici:request:create', 'undici:request:headers'],
  ['http.client.request.start', 'http.client.response.finish'],
] as const) {
  subscribe(started, (message) => {
    const { request } = message as { request: { method: string; path: string } };
    const label = `${request.method} ${pathOf(request.path)}`;
    clientRequests.set(request, label);
    mark(`fetch→ ${label}`);
  });
  subscribe(answered, (message) => {
    const { request } = message as { request: object };
    mark(`fetch← ${clientRequests.get(request) ?? '?'}`);
  });
}
subscribe('http.server.request.start', (message) => {
  const { request, response } = message as {
    request: { method?: string; url?: string };
    response: { on(event: string, listener: () => void): void };
  };
  const label = `${request.method} ${pathOf(request.url ?? '')}`;
  mark(`serve→ ${label}`);
  response.on('finish', () => mark(`serve← ${label}`));
});
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function patchedSend(
  this: WebSocket,
  data: unknown,
  ...rest: unknown[]
) {
  const text = String(data);
  const type = /"type":"([a-z_.]+)"/.exec(text)?.[1] ?? text.slice(0, 30);
  mark(`ws send ${type}`);
  return (send as (...args: unknown[]) => void).call(this, data, ...rest);
} as typeof WebSocket.prototype.send;

const kernel = await startTestKernel();
const dir = mkdtempSync(join(tmpdir(), 'airlock-profile-mcp-'));
mkdirSync(join(dir, 'src'));
writeFileSync(join(dir, 'src/a.txt'), 'hello');
const entry = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);
try {
  await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
    approval_mode: 'rules',
    approval_rules: [{ tool: 'fs__read_*', verdict: 'allow' }],
  });
  const gateway = await startGateway({
    url: kernel.url,
    workspaceId: kernel.workspace.id,
    executorToken: kernel.workspace.tokens.executor,
    servers: [{ name: 'fs', spec: { command: process.execPath, args: [entry, dir] } }],
  });
  const front = await gateway.listenHttp();
  const client = new Client({ name: 'profile', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(front.url), {
      requestInit: { headers: { authorization: `Bearer ${kernel.workspace.tokens.agent}` } },
    }),
  );
  const call = () =>
    client.callTool({ name: 'fs__read_text_file', arguments: { path: 'src/a.txt' } });
  for (let i = 0; i < 5; i += 1) await call();
  const timelines: Mark[][] = [];
  for (let i = 0; i < CALLS; i += 1) {
    marks = [];
    const start = performance.now();
    mark('call');
    await call();
    mark('answered');
    timelines.push(marks.map((m) => ({ at: m.at - start, label: m.label })));
    marks = null;
  }
  if (process.env.SHOW)
    for (const m of timelines.at(-1) ?? []) console.log(m.at.toFixed(2).padStart(8), m.label);
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  const first = (t: Mark[], prefix: string, after = 0) =>
    t.find((m) => m.label.startsWith(prefix) && m.at >= after)?.at ?? Number.NaN;
  const last = (t: Mark[], prefix: string) =>
    [...t].reverse().find((m) => m.label.startsWith(prefix))?.at ?? Number.NaN;
  // The serial path of one call, as phases between stamps (each a median over the calls).
  const phases: Array<[string, (t: Mark[]) => number]> = [
    ['client -> gateway (MCP POST arrives)', (t) => first(t, 'serve→ POST /mcp')],
    [
      'gateway -> kernel: submit sent',
      (t) => first(t, 'fetch→ POST /api/v1/workspaces') - first(t, 'serve→ POST /mcp'),
    ],
    [
      'kernel: submit (approval stage, row written)',
      (t) =>
        first(t, 'serve← POST /api/v1/workspaces') - first(t, 'serve→ POST /api/v1/workspaces'),
    ],
    [
      'submit answered to commit sent (the row claimed in the submit; tool on stdio)',
      (t) => first(t, 'fetch→ POST executor.commit') - first(t, 'serve← POST /api/v1/workspaces'),
    ],
    [
      'kernel: commit',
      (t) => first(t, 'serve← POST executor.commit') - first(t, 'serve→ POST executor.commit'),
    ],
    [
      'commit answered to the MCP answer',
      (t) => last(t, 'answered') - first(t, 'serve← POST executor.commit'),
    ],
    ['whole call', (t) => last(t, 'answered')],
  ];
  console.log(
    `profile:mcp  ${CALLS} granted calls, median ms of each phase of one call's serial path:`,
  );
  for (const [name, of] of phases)
    console.log(`${median(timelines.map(of)).toFixed(2).padStart(8)}  ${name}`);
  const count = (prefix: string) =>
    median(timelines.map((t) => t.filter((m) => m.label.startsWith(prefix)).length));
  console.log(
    `requests per call (median): submit ${count('serve→ POST /api/v1/workspaces')}, claimNext ${count('serve→ POST executor.claimNext')}, claim ${median(timelines.map((t) => t.filter((m) => m.label === 'serve→ POST executor.claim').length))}, commit ${count('serve→ POST executor.commit')}, task reads ${count('serve→ GET')}; ws messages ${count('ws send')}`,
  );
  await client.close();
  await gateway.close();
} finally {
  await kernel.close();
  rmSync(dir, { recursive: true, force: true });
}
