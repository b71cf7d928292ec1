import { randomBytes } from 'node:crypto';
import type { OperationName } from '@airlock/core';
import {
  eventually,
  startTestKernel,
  type TestKernel,
  type TestWorkspace,
} from '../support/kernel.js';
import { callOperation, type Reply, type Transport } from './wire.js';

/**
 * The things of one workspace another workspace's credential may name: ids
 * of runs in known states, of a claim, a conversation, a credential, an
 * application, a hooked session, and the cursors its lists handed out.
 */
export interface WorkspaceThings {
  workspace: string;
  application: string;
  credential: string;
  member: string;
  conversation: string;
  /** A conversation turn (regenerate takes a turn's run). */
  turnRun: string;
  /** A run whose `t1` waits for a person's approval. */
  parkedRun: string;
  /** The row version of the parked run's `t1`. */
  version: string;
  /** A run whose `t1` is runnable: an executor may claim it. */
  runnableRun: string;
  /** A run whose `t1` is claimed by the workspace's own executor, with its claim id. */
  claimedRun: string;
  claim: string;
  /** A gateway run (its client plants calls with runs.calls). */
  gatewayRun: string;
  /** A hooked agent's session id. */
  session: string;
  runsCursor: string;
  decisionsCursor: string;
  tasksCursor: string;
  /** A notification delivery id (none is planted: a made-up one of the same form). */
  delivery: string;
  /** A bearer token of the workspace's agent (credentials.revoke takes an id or a token). */
  token: string;
}

/** Which thing an operation's probe names. */
export type ThingName = keyof WorkspaceThings;

/** An id of the same form (prefix, length, alphabet) as `id`, naming nothing. */
export function madeUpLike(id: string): string {
  const cut = id.indexOf('_') + 1;
  const tail = randomBytes(id.length).toString('base64url').replace(/[-_]/g, 'x');
  return `${id.slice(0, cut)}${tail.slice(0, id.length - cut)}`;
}

/** A cursor of the same list's form whose ids are made up (`json` is the decoded cursor). */
function madeUpCursor(cursor: string): string {
  const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
  const made = parts.map((part) =>
    typeof part === 'string' && part.includes('_') ? madeUpLike(part) : part,
  );
  return Buffer.from(JSON.stringify(made)).toString('base64url');
}

/** The things of {@link WorkspaceThings}, each replaced by a made-up one of the same form. */
export function madeUpThings(real: WorkspaceThings): WorkspaceThings {
  const out = { ...real };
  for (const key of Object.keys(real) as ThingName[]) {
    const value = real[key];
    if (key.endsWith('Cursor')) out[key] = madeUpCursor(value);
    else if (key === 'version' || key === 'session') out[key] = `${value}0`;
    else if (key === 'token') out[key] = `alk_agent_${randomBytes(32).toString('base64url')}`;
    else if (key === 'member') out[key] = `member:${madeUpLike(value.slice('member:'.length))}`;
    else out[key] = madeUpLike(value);
  }
  return out;
}

/** A caller of one workspace's operations over REST with one of its tokens. */
export function caller(url: string, token: string) {
  return async (name: OperationName, input: Record<string, unknown>): Promise<Reply> =>
    callOperation({ url, transport: 'rest', token, name, input });
}

async function must(reply: Promise<Reply>, what: string): Promise<Record<string, unknown>> {
  const answer = await reply;
  if (answer.error) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.error)}`);
  return answer.result as Record<string, unknown>;
}

function scripted(mark: string, mode: 'ask' | 'bypass', tools: string[]) {
  return {
    approval_mode: mode,
    input: `${mark} input`,
    provider: {
      kind: 'scripted',
      rounds: [
        { tool_calls: tools.map((name) => ({ name, input: { note: mark } })) },
        { final: 'done' },
      ],
    },
  };
}

/**
 * Plants in a workspace a run in each state its operations act on, a
 * conversation turn, a hooked session and a page of each list, through its
 * own tokens, each carrying `mark` (its tool names, inputs, session id); the
 * ids it made. Its runs are the member's (of no application) unless `runsBy` says the agent's.
 */
export async function plantThings(
  url: string,
  ws: TestWorkspace,
  mark: string,
  options: { runsBy: 'member' | 'agent' } = { runsBy: 'member' },
): Promise<WorkspaceThings> {
  const member = caller(url, ws.tokens.member);
  const agent = caller(url, ws.tokens.agent);
  const executor = caller(url, ws.tokens.executor);
  const workspace_id = ws.id;
  const taskState = async (run: string) =>
    ((await member('tasks.get', { workspace_id, run_id: run, task_key: 't1' })).result as {
      state?: string;
      version?: string;
    } | null) ?? {};
  const run = async (body: Record<string, unknown>, state: string) => {
    // A member's run belongs to no application; an agent's to the agent's application.
    const by = options.runsBy === 'agent' ? agent : member;
    const made = await must(by('runs.create', { workspace_id, ...body }), 'runs.create');
    const id = String(made.id);
    await eventually(async () => (await taskState(id)).state === state, { what: `${id} ${state}` });
    return id;
  };
  await must(agent('profile.put', { approval_mode: 'ask' }), 'profile.put');
  const conversation = String((await must(agent('conversations.create', {}), 'conversation')).id);
  const turn = await must(
    agent('conversations.input', {
      conversation_id: conversation,
      input: `${mark} turn`,
      provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
    }),
    'conversations.input',
  );
  const parkedRun = await run(scripted(mark, 'ask', [`deploy_${mark}`, 'other']), 'needs_approval');
  // A second waiting decision, so the decisions list has a second page.
  await run(scripted(mark, 'ask', [`deploy_${mark}`]), 'needs_approval');
  const runnableRun = await run(scripted(mark, 'bypass', [`${mark}_tool`]), 'runnable');
  const claimedRun = await run(scripted(mark, 'bypass', [`${mark}_tool`]), 'runnable');
  const claimed = await must(
    executor('executor.claim', { run_id: claimedRun, task_key: 't1', lease_ms: 3_600_000 }),
    'executor.claim',
  );
  const gateway = await must(
    agent('runs.create', {
      workspace_id,
      approval_mode: 'ask',
      input: mark,
      provider: { kind: 'gateway', client: mark },
    }),
    'gateway run',
  );
  const session = `session-${mark}`;
  await must(
    agent('hooks.event', { agent: 'claude-code', session_id: session, event: 'session_start' }),
    'hooks.event',
  );
  const self = await must(
    caller(url, ws.tokens.agent)('credentials.self', { workspace_id }),
    'credentials.self',
  );
  const memberSelf = await must(member('credentials.self', { workspace_id }), 'credentials.self');
  const page = async (name: OperationName, input: Record<string, unknown>) =>
    String((await must(member(name, { workspace_id, limit: 1, ...input }), name)).next_cursor);
  return {
    workspace: ws.id,
    application: ws.appId,
    credential: String(self.credential_id),
    member: `member:${String(memberSelf.credential_id)}`,
    conversation,
    turnRun: String(turn.id),
    parkedRun,
    version: String((await taskState(parkedRun)).version),
    runnableRun,
    claimedRun,
    claim: String(claimed.claim_id),
    gatewayRun: String(gateway.id),
    session,
    runsCursor: await page('runs.list', {}),
    decisionsCursor: await page('decisions.list', {}),
    tasksCursor: await page('tasks.list', { run_id: parkedRun }),
    delivery: madeUpLike('ntf_AAAAAAAAAAAAAAAA'),
    token: ws.tokens.agent,
  };
}

/** The marks each workspace's planted things carry (tool names, inputs, session ids). */
export const MARKS = { a: 'amark2k', b: 'bmark7q' } as const;

/** A kernel with two workspaces, A and B, each with its things planted. */
export interface TwoWorkspaces {
  kernel: TestKernel;
  a: TestWorkspace;
  b: TestWorkspace;
  aThings: WorkspaceThings;
  bThings: WorkspaceThings;
}

/**
 * Starts a kernel on loopback with workspaces A and B and plants each one's things; on
 * SQLite, or on the PostgreSQL database `store.databaseUrl` names.
 */
export async function startTwoWorkspaces(
  store: { databaseUrl?: string } = {},
): Promise<TwoWorkspaces> {
  const kernel = await startTestKernel({}, store);
  const a = kernel.workspace;
  const aThings = await plantThings(kernel.url, a, MARKS.a);
  // B's rows are all newer than A's: a cursor of B's sorts apart from every row of A.
  const after = Date.now();
  await eventually(() => Date.now() > after + 1);
  const b = await kernel.addWorkspace('b');
  const bThings = await plantThings(kernel.url, b, MARKS.b);
  return { kernel, a, b, aThings, bThings };
}

/** Every transport an operation is served on. */
export const TRANSPORTS: readonly Transport[] = ['rest', 'trpc'];
