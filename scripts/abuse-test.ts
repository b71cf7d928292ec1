/**
 * The abuse test (issue 24): a real `airlock serve` on SQLite and a real
 * `airlock gateway mcp --http` in front of it, attacked as an outsider holding
 * one credential would: a tool schema whose pattern backtracks (`^(a+)+$`)
 * with a call built to make it, the gateway opened with another workspace's
 * agent credential, the gateway opened from a foreign Origin, and 2,000 wrong
 * tokens, while a worker thread sends `GET /healthz` one after another and a
 * person approves a parked call. Checks: every `/healthz` answered within the
 * bound (50 ms), nothing was created for the foreign credential or Origin,
 * the wrong tokens met 429 `rate_limited` with Retry-After while the approve
 * succeeded, and the workspaces' state is what it was before the attack.
 *
 *   ./run test:abuse
 *   node --import tsx scripts/abuse-test.ts [--healthz-ms 50] [--tokens 2000]
 *
 * Exits 1 on any violation, printing each; prints its figures either way.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Store } from '../packages/server/src/store/store.js';
import { workspaceWithTokens } from '../packages/server/src/testing/workspace-tokens.js';
import { probeHealthz } from './faults/healthz-probe.js';
import { type Loose, sleep } from './faults/http.js';
import { freePort, startKernel } from './faults/kernel-process.js';

const { values } = parseArgs({
  // `pnpm x -- --flag` hands the `--` on: the flags after it are still ours.
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    'healthz-ms': { type: 'string', default: '50' },
    tokens: { type: 'string', default: '2000' },
  },
});
const HEALTHZ_MS = Number(values['healthz-ms']);
const WRONG_TOKENS = Number(values.tokens);
const CLI = fileURLToPath(new URL('../packages/server/dist/cli.js', import.meta.url));
const SLOW_SERVER = fileURLToPath(
  new URL('../packages/tests/src/mcp/fixtures/slow-server.mjs', import.meta.url),
);
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'x', version: '1' },
  },
};

const found: string[] = [];
function check(ok: boolean, what: string): void {
  if (!ok) found.push(what);
}

async function call(
  url: string,
  token: string | null,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Loose; headers: Headers }> {
  const response = await fetch(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let parsed: Loose = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** Starts `airlock gateway mcp --http` serving the slow fixture server; resolves once it listens. */
async function startGateway(options: {
  kernelUrl: string;
  workspaceId: string;
  executor: string;
  agent: string;
}): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      CLI,
      'gateway',
      'mcp',
      '--http',
      '--port',
      String(port),
      '--url',
      options.kernelUrl,
      '--workspace',
      options.workspaceId,
      '--executor-token',
      options.executor,
      '--agent-token',
      options.agent,
      '--name',
      'slow',
      '--',
      process.execPath,
      SLOW_SERVER,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  process.once('exit', () => child.kill('SIGKILL'));
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the gateway did not listen: ${stderr}`)),
      30_000,
    );
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('tools at http')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`the gateway exited (${code}): ${stderr}`)));
  });
  child.stdout!.resume();
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

/** What must not change: every workspace's runs, conversations, profiles, overlays, credentials. */
async function snapshot(store: Store): Promise<string> {
  const db = store.db;
  return JSON.stringify({
    workspaces: await db.selectFrom('workspaces').select('id').orderBy('id').execute(),
    runs: await db.selectFrom('runs').select(['id', 'workspace_id']).orderBy('id').execute(),
    conversations: await db.selectFrom('conversations').select('id').orderBy('id').execute(),
    profiles: await db
      .selectFrom('profile_configurations')
      .select(['agent_application_id', 'version'])
      .orderBy('agent_application_id')
      .orderBy('version')
      .execute(),
    overlays: await db
      .selectFrom('overlay_documents')
      .select(['scope', 'owner_id', 'digest', 'trusted_digest'])
      .orderBy('owner_id')
      .execute(),
    credentials: await db
      .selectFrom('credentials')
      .select(['id', 'revoked_at'])
      .orderBy('id')
      .execute(),
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'airlock-abuse-'));
const kernel = await startKernel('abuse', { dataDir });
try {
  const bannerBy = Date.now() + 10_000;
  while (!kernel.stderr.includes('member token') && Date.now() < bannerBy) await sleep(50);
  const pick = (pattern: RegExp) => pattern.exec(kernel.stderr)?.[1] ?? '';
  const a = {
    id: pick(/workspace\s+(\S+)/),
    agent: pick(/agent token\s+(\S+)/),
    executor: pick(/executor token\s+(\S+)/),
    member: pick(/member token\s+(\S+)/),
  };
  const ws = `${kernel.url}/api/v1/workspaces/${a.id}`;
  // The foreign workspace B, written into the same store beside the running kernel.
  const store = await Store.open({ dataDir });
  const b = await workspaceWithTokens(store, 'foreign');
  const gateway = await startGateway({
    kernelUrl: kernel.url,
    workspaceId: a.id,
    executor: a.executor,
    agent: a.agent,
  });
  // The same probe on the idle kernel first: what this machine's load alone costs a /healthz.
  const calmProbe = probeHealthz(kernel.url);
  await sleep(3000);
  const calm = await calmProbe.stop();
  const probe = probeHealthz(kernel.url);
  const started = Date.now();

  // 1. The backtracking schema: declared on a run, and a call built to make it backtrack.
  const redos = await call(`${ws}/runs`, a.agent, 'POST', {
    approval_mode: 'bypass',
    input: 'x',
    tool_manifest: [
      {
        name: 'lookup',
        input_schema: {
          type: 'object',
          properties: { q: { type: 'string', pattern: '^(a+)+$' } },
        },
        risk_traits: ['read'],
      },
    ],
    provider: {
      kind: 'scripted',
      rounds: [
        { tool_calls: [{ name: 'lookup', input: { q: `${'a'.repeat(29)}!` } }] },
        { final: 'f' },
      ],
    },
  });
  check(redos.status === 201 || redos.status === 422, `the ReDoS schema answered ${redos.status}`);

  // A call that parks, for a person to approve during the flood.
  const parked = await call(`${ws}/runs`, a.agent, 'POST', {
    approval_mode: 'ask',
    input: 'x',
    provider: {
      kind: 'scripted',
      rounds: [{ tool_calls: [{ name: 'bash', input: { command: 'ls' } }] }, { final: 'f' }],
    },
  });
  check(parked.status === 201, `the run to approve answered ${parked.status}`);
  const parkedRun = String(parked.body?.id);
  for (let i = 0; i < 200; i++) {
    const tasks = await call(`${ws}/runs/${parkedRun}/tasks`, a.member, 'GET');
    if (tasks.body?.tasks?.[0]?.state === 'needs_approval') break;
    await sleep(25);
  }
  const before = await snapshot(store);

  // 2. The gateway opened with workspace B's agent (and member) credential.
  const crossWorkspace: number[] = [];
  for (const token of [b.tokens.agent, b.tokens.member]) {
    const opened = await call(gateway.url, token, 'POST', INITIALIZE, {
      accept: 'application/json, text/event-stream',
    });
    crossWorkspace.push(opened.status);
    check(
      opened.status === 403,
      `the gateway answered ${opened.status} to workspace B's credential`,
    );
    check(
      !opened.headers.get('mcp-session-id'),
      "a session was opened for workspace B's credential",
    );
  }

  // 3. The gateway opened from a foreign Origin with A's own agent credential.
  const foreign = await call(gateway.url, a.agent, 'POST', INITIALIZE, {
    accept: 'application/json, text/event-stream',
    origin: 'http://evil.example',
  });
  check(foreign.status === 403, `the gateway answered ${foreign.status} to a foreign Origin`);
  check(!foreign.headers.get('mcp-session-id'), 'a session was opened for a foreign Origin');

  // 4. Wrong tokens, 50 at a time; halfway, a person approves the parked call.
  const statuses = new Map<number, number>();
  let retryAfterMissing = 0;
  let approve: Promise<{ status: number; body: Loose }> | null = null;
  for (let sent = 0; sent < WRONG_TOKENS; sent += 50) {
    const batch = Array.from({ length: Math.min(50, WRONG_TOKENS - sent) }, (_, i) =>
      call(`${ws}/runs`, `alk_member_${(sent + i).toString(16).padStart(43, '0')}`, 'GET'),
    );
    if (approve === null && sent >= WRONG_TOKENS / 2) {
      approve = call(`${ws}/runs/${parkedRun}/tasks/t1/approve`, a.member, 'POST', {});
    }
    for (const answer of await Promise.all(batch)) {
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 429) {
        if (answer.body?.error?.code !== 'rate_limited') found.push('a 429 without rate_limited');
        if (!answer.headers.get('retry-after')) retryAfterMissing++;
      }
    }
  }
  const approved = await approve!;
  check(approved.status === 200, `the approve during the flood answered ${approved.status}`);
  check((statuses.get(429) ?? 0) > 0, 'no wrong token met 429: throttling never engaged');
  check(retryAfterMissing === 0, `${retryAfterMissing} answers 429 without Retry-After`);
  check(
    [...statuses.keys()].every((status) => status === 401 || status === 429),
    `wrong tokens got answers other than 401/429: ${JSON.stringify([...statuses])}`,
  );

  const health = await probe.stop();
  const after = await snapshot(store);
  check(
    after === before,
    'the workspaces changed under the attack (runs, conversations, profiles, overlays or credentials)',
  );
  const foreignRuns = await store.db
    .selectFrom('runs')
    .select('id')
    .where('workspace_id', '=', b.workspaceId)
    .execute();
  check(foreignRuns.length === 0, `${foreignRuns.length} run(s) created in workspace B`);
  check(health.failures === 0, `${health.failures} /healthz requests failed`);
  check(
    health.maxMs <= HEALTHZ_MS,
    `the slowest /healthz took ${health.maxMs.toFixed(1)} ms (bound ${HEALTHZ_MS} ms)`,
  );
  console.log(
    `abuse-test sqlite: ReDoS schema ${redos.status}; workspace B at the gateway ${crossWorkspace.join('/')}, ` +
      `foreign Origin ${foreign.status}; ${WRONG_TOKENS} wrong tokens: ` +
      `${[...statuses].map(([status, n]) => `${n} x ${status}`).join(', ')}; approve during the flood ${approved.status}; ` +
      `${health.count} /healthz, slowest ${health.maxMs.toFixed(1)} ms, p99 ${health.p99Ms.toFixed(1)} ms; ` +
      `(idle kernel before: slowest ${calm.maxMs.toFixed(1)} ms, p99 ${calm.p99Ms.toFixed(1)} ms); ` +
      `runs in B ${foreignRuns.length}; ${((Date.now() - started) / 1000).toFixed(1)} s; ${found.length} violation(s)`,
  );
  gateway.child.kill('SIGTERM');
  await store.close();
} finally {
  await kernel.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
for (const violation of found) console.log(`VIOLATION ${violation}`);
process.exit(found.length === 0 ? 0 : 1);
