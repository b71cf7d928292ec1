import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { OPERATION_CONTRACTS, type OperationContract, pathParams } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import {
  bodyMutations,
  fieldMutations,
  type HostileRequest,
  headerMutations,
  leafMutations,
  pathMutations,
  queryMutations,
} from '../testing/hostile-requests.js';
import {
  contractBreach,
  fillPath,
  fullFieldSamples,
  sampleBody,
} from '../testing/operation-samples.js';
import {
  type FixtureKind,
  fixtureHolds,
  makeFixture,
  type RunFixture,
} from '../testing/run-fixtures.js';
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
    if (!hostile.chunked) headers['content-length'] = Buffer.byteLength(hostile.body);
    const type = hostile.contentType === undefined ? 'application/json' : hostile.contentType;
    if (type !== null) headers['content-type'] = type;
  }
  Object.assign(headers, hostile.headers);
  const method = hostile.method ?? options.method;
  return new Promise((resolve) => {
    let answered = false;
    const req = request({ hostname, port, agent, method, path: options.path, headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    // The server may answer (413, 400) and close before it has read the whole body.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered) resolve({ status: 0, contentType: '', text: `no answer: ${error.message}` });
    });
    if (hostile.chunked && typeof hostile.body === 'string') {
      const middle = Math.floor(hostile.body.length / 2);
      req.write(hostile.body.slice(0, middle));
      req.end(hostile.body.slice(middle));
    } else {
      req.end(hostile.body);
    }
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
  contract: Pick<OperationContract, 'method' | 'errors'>,
  sent: { method: string; path: string },
  reply: Reply,
): string | null {
  if (reply.status === 0 || (reply.status >= 500 && reply.status !== 503)) {
    return `status ${reply.status}: ${reply.text}`;
  }
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
  if (sent.method !== contract.method) {
    // A method the route does not serve reaches no operation: the router answers 405
    // method_not_allowed (with `allow`) on any route, so no contract lists it.
    return answer.code === 'method_not_allowed' && answer.status === 405
      ? null
      : `${answer.code} (${answer.status}) to ${sent.method}, not 405 method_not_allowed`;
  }
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

/** The run each operation acts on, where it needs more than a run waiting on `t1`'s approval. */
const FIXTURE_OF: Readonly<Record<string, FixtureKind>> = {
  'runs.calls': 'gateway',
  'runs.cancelCall': 'gateway_parked',
  'executor.claim': 'approved',
  'executor.heartbeat': 'claimed',
  'executor.commit': 'claimed',
  'decisions.resolve': 'question',
  'decisions.retry': 'held',
};

/** Body fields an operation's sample needs to pass its handler's checks on its run. */
const BASE_OF: Readonly<Record<string, Record<string, unknown>>> = {
  // The question fixture's options are Now and Later: another answer stops at invalid_resolution.
  'decisions.resolve': { content: 'Now' },
};

/** Stands for the claim id of the run a request acts on, filled in when it is sent. */
const CLAIM_HOLE = '\u0002claim\u0002';
const CLAIM_HOLE_TEXT = JSON.stringify(CLAIM_HOLE);

/** The hostile requests of an operation, deterministic. */
function hostileRequests(contract: OperationContract): HostileRequest[] {
  const params = pathParams(contract.path);
  const fields = Object.keys(contract.input.shape).filter((key) => !params.includes(key));
  const base = { ...sampleBody(contract), ...BASE_OF[contract.name] };
  if ('claim_id' in base) base.claim_id = CLAIM_HOLE;
  const requests = [
    ...pathMutations(params),
    ...headerMutations(base, {
      takesVersion: 'version' in contract.input.shape,
      hasBody: contract.method !== 'GET',
    }),
  ];
  if (contract.method === 'GET') requests.push(...queryMutations(fields));
  else {
    requests.push(
      ...bodyMutations(base),
      ...fieldMutations(base, fields),
      ...leafMutations(base, fullFieldSamples(contract)),
    );
  }
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
      const ids: Record<string, string> = {};
      const fixtures = new Map<FixtureKind, RunFixture>();
      /** The run of a kind the paths name now, made when there is none. */
      async function fixture(kind: FixtureKind): Promise<{ made: boolean; run: RunFixture }> {
        const known = fixtures.get(kind);
        if (known) return { made: false, run: known };
        const run = await makeFixture(d, kind);
        fixtures.set(kind, run);
        return { made: true, run };
      }
      beforeAll(async () => {
        // No clock sweep during the drive: only the requests themselves change the store.
        d = await deploy(backend, { sweepIntervalMs: 3_600_000 });
        agent = new Agent({ keepAlive: true, maxSockets: 1 });
        ids.conversation_id = (await d.agent.post('/agent_api/v1/conversations', {})).body.id;
        const app = await d.member.post(`${d.ws}/agent_applications`, { name: 'spare' });
        ids.agent_application_id = app.body.id;
        const credential = await d.member.post(`${d.ws}/credentials`, {
          kind: 'executor',
          agent_application_id: d.appId,
        });
        ids.credential_id = credential.body.credential_id;
        for (const id of Object.values(ids)) expect(id).toMatch(/^[a-z]+_/);
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
        const answers: string[] = [];
        let runsMade = 0;
        const drive = async (
          contract: OperationContract,
          plane: string,
          hostile: HostileRequest,
        ): Promise<void> => {
          const kind = FIXTURE_OF[contract.name] ?? 'waiting';
          const { made, run } = await fixture(kind);
          if (made) {
            runsMade++;
            before = await storeFingerprint(store);
          }
          const defaults: Record<string, string> = {
            ...ids,
            workspace_id: d.workspaceId,
            run_id: run.runId,
            task_key: run.taskKey,
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
          const body =
            typeof hostile.body === 'string'
              ? hostile.body.replaceAll(CLAIM_HOLE_TEXT, JSON.stringify(run.claimId))
              : hostile.body;
          const reply = await send(d.url, agent, {
            method: contract.method,
            path,
            token,
            hostile: { ...hostile, body },
          });
          sent++;
          answers.push(
            `${reply.status} ${reply.text.slice(0, 200).replace(/\n/g, ' ')} <= ${name}`,
          );
          const method = hostile.method ?? contract.method;
          const breach = answerBreach(contract, { method, path }, reply);
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
            // An accepted request may start work: let it settle; a run it moved is made afresh.
            await d.airlock.kernel.idle();
            const after = await storeFingerprint(store);
            if (Object.keys(after).some((key) => after[key] !== before[key])) {
              acceptedChanges++;
              if (contract.path.includes('{run_id}') && !(await fixtureHolds(d, kind, run))) {
                fixtures.delete(kind);
              }
            }
            before = after;
          }
        };
        for (const contract of Object.values(OPERATION_CONTRACTS) as OperationContract[]) {
          const planes = contract.planes as readonly string[];
          const requests = hostileRequests(contract);
          // The first plane gets every request; each further plane every third, a different third
          // each (the planes share the handler past the door), which keeps the run time in bounds.
          for (const [index, hostile] of requests.entries()) {
            for (const [rank, plane] of planes.entries()) {
              if (rank === 0 || index % 3 === rank % 3) await drive(contract, plane, hostile);
            }
          }
          // Another plane's token, or none, with a body that is not JSON: refused at the door.
          const notJson = requests.find((hostile) => hostile.label.includes('not JSON'))!;
          for (const plane of ['agent', 'executor', 'member', 'none']) {
            if (!planes.includes(plane)) await drive(contract, plane, notJson);
          }
        }
        // AIRLOCK_HOSTILE_LOG=/tmp/hostile keeps every request's answer in /tmp/hostile-<backend>.log.
        const logPrefix = process.env.AIRLOCK_HOSTILE_LOG;
        if (logPrefix) writeFileSync(`${logPrefix}-${backend.name}.log`, `${answers.join('\n')}\n`);
        console.log(
          `[hostile inputs ${backend.name}] ${sent} requests, ${refused} refused, ${runsMade} runs made`,
        );
        expect(findings).toEqual([]);
        // The drive reached the handlers, not only the door.
        expect(refused).toBeGreaterThan(sent / 2);
        // The fingerprint sees changes: accepted requests made some.
        expect(acceptedChanges).toBeGreaterThan(10);
      }, 300_000);
    },
  );
}
