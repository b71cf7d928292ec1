import { Agent, request } from 'node:http';
import { OPERATION_CONTRACTS, type OperationContract, pathParams } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import {
  bodyMutations,
  fieldMutations,
  type HostileRequest,
  pathMutations,
  queryMutations,
} from '../testing/hostile-requests.js';
import { contractBreach, fillPath, sampleBody } from '../testing/operation-samples.js';
import { type StoreFingerprint, storeFingerprint } from '../testing/store-fingerprint.js';
import { backends } from '../testing/stores.js';

interface Reply {
  status: number;
  contentType: string;
  text: string;
}

/** Sends one request as written (no path normalization, any method with any body). */
function send(
  url: string,
  agent: Agent,
  options: { method: string; path: string; token: string | null; hostile: HostileRequest },
): Promise<Reply> {
  const { hostile } = options;
  const { hostname, port } = new URL(url);
  const headers: Record<string, string | number> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (hostile.body !== undefined) {
    headers['content-length'] = Buffer.byteLength(hostile.body);
    const type = hostile.contentType === undefined ? 'application/json' : hostile.contentType;
    if (type !== null) headers['content-type'] = type;
  }
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, agent, method: options.method, path: options.path, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    // The server may answer (413, 400) and close before it has read the whole body.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    req.end(hostile.body);
  });
}

/** A stack frame or a source file's path in an error's detail. */
const LEAK = /\n\s+at |\bat .+:\d+:\d+|\.[cm]?[jt]s:\d+|node:internal|\/(work|home|usr|tmp|src)\//;

/** The contract a request reaches: a dot segment resolves (as URL does) to another path. */
function contractOf(method: string, path: string): OperationContract | null {
  const parts = path.split('/');
  for (const contract of Object.values(OPERATION_CONTRACTS) as OperationContract[]) {
    const segments = contract.path.split('/');
    if (contract.method !== method || segments.length !== parts.length) continue;
    const same = segments.every((segment, i) =>
      segment.startsWith('{') ? parts[i] !== '' : segment === parts[i],
    );
    if (same) return contract;
  }
  return null;
}

/** Why an answer breaks the house rule, or null when it keeps it. */
function answerBreach(
  contract: OperationContract,
  sent: { method: string; path: string },
  reply: Reply,
): string | null {
  if (reply.status >= 500 && reply.status !== 503) return `status ${reply.status}: ${reply.text}`;
  if (reply.status < 400) return null;
  if (!reply.contentType.startsWith('application/json')) return `content-type ${reply.contentType}`;
  let error: { code?: unknown; detail?: unknown };
  try {
    error = (JSON.parse(reply.text) as { error: typeof error }).error;
  } catch {
    return `not JSON: ${reply.text.slice(0, 200)}`;
  }
  if (typeof error?.code !== 'string' || typeof error.detail !== 'string') {
    return `not the error envelope: ${reply.text.slice(0, 200)}`;
  }
  if (LEAK.test(error.detail)) return `a stack or a path in the detail: ${error.detail}`;
  const answer = { status: reply.status, code: error.code };
  const resolved = new URL(sent.path, 'http://x').pathname;
  if (resolved !== sent.path.split('?')[0]) {
    // A `.` or `..` segment is resolved before routing (as any URL is): the request is one to the
    // resolved path, answered by its operation, or as no route (404) or a wrong method (405) there.
    const reached = contractOf(sent.method, resolved);
    if (reached) return contractBreach(reached, answer);
    if (answer.code === 'not_found' && answer.status === 404) return null;
    if (answer.code === 'method_not_allowed' && answer.status === 405) return null;
  }
  const breach = contractBreach(contract, answer);
  return breach && `${breach}: ${error.detail.slice(0, 300)}`;
}

/** The hostile requests of an operation, deterministic. */
function hostileRequests(contract: OperationContract): HostileRequest[] {
  const params = pathParams(contract.path);
  const fields = Object.keys(contract.input.shape).filter((key) => !params.includes(key));
  const base = sampleBody(contract);
  const requests = [...pathMutations(params)];
  if (contract.method === 'GET') requests.push(...queryMutations(fields));
  else requests.push(...bodyMutations(base), ...fieldMutations(base, fields));
  return requests;
}

/** A request that broke the house rule, and how. */
interface Finding {
  request: string;
  problem: string;
}

/*
 * Every operation of the contracts, with each plane's token it accepts, on
 * a real run and task, driven with hostile variations of its smallest valid
 * request (see testing/hostile-requests.ts). Every answer is a success or the
 * error envelope with a code the operation declares, at the table's status,
 * with no stack in its detail; and a refused request leaves every table's
 * figures as they were. The clock sweep is off, so only requests change the store.
 */
for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `hostile input to every operation (${backend.name})`,
    () => {
      let d: Deployment;
      let agent: Agent;
      let runId = '';
      const ids: Record<string, string> = {};
      /** A run whose first task waits for approval: what the run and task paths name. */
      async function freshRun(): Promise<void> {
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          input: 'x',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name: 'ls' }] }, { final: 'x' }],
          },
        });
        runId = created.body.id;
        await waitFor(async () => {
          const task = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
          return task.body.state === 'needs_approval';
        });
      }
      /** True while the run the paths name still waits on its task. */
      async function runWaits(): Promise<boolean> {
        const task = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
        const run = await d.member.get(`${d.ws}/runs/${runId}`);
        return task.body.state === 'needs_approval' && run.body.state === 'running';
      }
      beforeAll(async () => {
        // No clock sweep during the drive: only the requests themselves change the store.
        d = await deploy(backend, { sweepIntervalMs: 3_600_000 });
        agent = new Agent({ keepAlive: true, maxSockets: 1 });
        await freshRun();
        ids.conversation_id = (await d.agent.post('/agent_api/v1/conversations', {})).body.id;
        const app = await d.member.post(`${d.ws}/agent_applications`, { name: 'spare' });
        ids.agent_application_id = app.body.id;
        const credential = await d.member.post(`${d.ws}/credentials`, {
          kind: 'executor',
          agent_application_id: d.appId,
        });
        ids.credential_id = credential.body.id;
      });
      afterAll(async () => {
        agent?.destroy();
        await d?.close();
      });

      it('answers every hostile request with a declared error, and a refused one changes nothing', async () => {
        const findings: Finding[] = [];
        const store = d.airlock.store;
        let before: StoreFingerprint = await storeFingerprint(store);
        let sent = 0;
        let refused = 0;
        let acceptedChanges = 0;
        const drive = async (
          contract: OperationContract,
          plane: string,
          hostile: HostileRequest,
        ): Promise<void> => {
          const defaults: Record<string, string> = {
            ...ids,
            workspace_id: d.workspaceId,
            run_id: runId,
            task_key: 't1',
            owner_id: ids.conversation_id ?? '',
            scope: 'conversation',
            hook_options: 'wait-0',
            delivery_id: 'dlv_nope',
          };
          const path =
            fillPath(contract.path, (param) => hostile.segments?.[param] ?? defaults[param]!) +
            (hostile.query === undefined ? '' : `?${hostile.query}`);
          const name = `${contract.name} as ${plane}: ${hostile.label}`;
          const token = d.tokens[plane as keyof typeof d.tokens] ?? null;
          const reply = await send(d.url, agent, { method: contract.method, path, token, hostile });
          sent++;
          const breach = answerBreach(contract, { method: contract.method, path }, reply);
          if (breach) findings.push({ request: name, problem: breach });
          if (reply.status >= 400) {
            refused++;
            const after = await storeFingerprint(store);
            const changed = Object.keys(after).filter((key) => after[key] !== before[key]);
            if (changed.length > 0) {
              findings.push({
                request: name,
                problem: `refused, yet changed ${changed.join(', ')}`,
              });
            }
            before = after;
          } else {
            // An accepted request may start work: let it settle, and keep a waiting run at hand.
            await d.airlock.kernel.idle();
            if (!(await runWaits())) await freshRun();
            await d.airlock.kernel.idle();
            const after = await storeFingerprint(store);
            if (Object.keys(after).some((key) => after[key] !== before[key])) acceptedChanges++;
            before = after;
          }
        };
        for (const contract of Object.values(OPERATION_CONTRACTS) as OperationContract[]) {
          const planes = contract.planes as readonly string[];
          const requests = hostileRequests(contract);
          for (const hostile of requests) {
            for (const plane of planes) await drive(contract, plane, hostile);
          }
          // Another plane's token, or none, with a body that is not JSON: refused at the door.
          const notJson = requests.find((hostile) => hostile.label.includes('not JSON'))!;
          for (const plane of ['agent', 'executor', 'member', 'none']) {
            if (!planes.includes(plane)) await drive(contract, plane, notJson);
          }
        }
        console.log(`[hostile inputs ${backend.name}] ${sent} requests, ${refused} refused`);
        expect(findings).toEqual([]);
        // The drive reached the handlers, not only the door.
        expect(refused).toBeGreaterThan(sent / 2);
        // The fingerprint sees changes: accepted requests made some.
        expect(acceptedChanges).toBeGreaterThan(10);
      }, 300_000);
    },
  );
}
