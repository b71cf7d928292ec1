import { connect } from '../../packages/server/src/testing/sockets.js';
import { callUntilAnswered, type Loose, sleep } from './http.js';
import type { KernelProcess } from './kernel-process.js';
import type { Actors, Ledger } from './workload.js';

const TERMINAL = new Set(['succeeded', 'failed', 'timed_out', 'canceled']);
const WAITING = new Set(['needs_approval', 'awaiting_input']);
const PERSON_DECISIONS = ['task.approved', 'task.denied', 'task.expired', 'task.resolved'];

/** What the store holds at the end: every run with its rows and events. */
export interface Snapshot {
  runs: { run: Loose; tasks: Loose[]; events: Loose[] }[];
  feed: Loose[];
}

/** Reads every run, row and event over REST, and the whole workspace feed over WebSocket. */
export async function snapshot(
  kernels: readonly KernelProcess[],
  actors: Actors,
): Promise<Snapshot> {
  const get = async (path: string) =>
    (await callUntilAnswered(kernels, actors.member, 'GET', path)).body;
  const runs: Snapshot['runs'] = [];
  for (const run of (await get(`${actors.ws}/runs?limit=1000`)).runs as Loose[]) {
    const base = `${actors.ws}/runs/${run.id}`;
    const events: Loose[] = [];
    for (;;) {
      const page = (await get(`${base}/events?limit=1000&after=${events.at(-1)?.seq ?? 0}`))
        .events as Loose[];
      events.push(...page);
      if (page.length < 1000) break;
    }
    runs.push({ run, tasks: (await get(`${base}/tasks`)).tasks, events });
  }
  const head = Math.max(0, ...runs.flatMap((r) => r.events.map((e) => e.seq as number)));
  const kernel = kernels.find((k) => k.alive())!;
  const socket = await connect(`${kernel.url}${actors.ws}/feed?after=0`, actors.member);
  const deadline = Date.now() + 30_000;
  const feed = () => socket.messages.filter((m) => m.type === 'event').map((m) => m.event);
  while (feed().length < head && Date.now() < deadline) await sleep(50);
  await sleep(200);
  socket.close();
  return { runs, feed: feed() };
}

function count(events: Loose[], type: string): number {
  return events.filter((e) => e.type === type).length;
}

/** Checks the invariants; answers every violation found (none when the kernel held). */
export function violations(state: Snapshot, ledger: Ledger): string[] {
  const found: string[] = [];
  for (const { run, tasks, events } of state.runs) {
    if (run.state === 'running') found.push(`run ${run.id} is still running after the drain`);
    for (const task of tasks) {
      const key = `${run.id}/${task.key}`;
      const own = events.filter((e) => e.task_key === task.key);
      if (!TERMINAL.has(task.state) && !WAITING.has(task.state)) {
        found.push(`${key} rests at ${task.state}, neither terminal nor waiting`);
      }
      const decisions = PERSON_DECISIONS.reduce((n, type) => n + count(own, type), 0);
      if (decisions > 1) found.push(`${key} has ${decisions} decisions applied`);
      for (const type of ['task.granted', 'task.parked', 'task.succeeded']) {
        if (count(own, type) > 1) found.push(`${key} has ${count(own, type)} ${type} events`);
      }
      const approved = ledger.approved.get(key) ?? 0;
      if (approved > 1) found.push(`${key} was approved ${approved} times (each answered 200)`);
      if (approved === 1 && count(own, 'task.approved') !== 1) {
        found.push(`${key}: an approve answered 200 is missing from the event log (lost)`);
      }
      if (approved === 1 && ['needs_approval'].includes(task.state)) {
        found.push(`${key}: approved (200) but still needs approval`);
      }
      const denied = ledger.denied.get(key) ?? 0;
      if (denied === 1 && count(own, 'task.denied') !== 1) {
        found.push(`${key}: a deny answered 200 is missing from the event log (lost)`);
      }
      if (approved + denied > 1) found.push(`${key}: two decisions were both answered 200`);
      const commits = ledger.commits.get(key) ?? 0;
      if (commits > 1) found.push(`${key}: ${commits} commits accepted (executed twice)`);
      if (commits === 1 && (ledger.claims.get(key) ?? 0) > 1) {
        // A second claim is fine only while no commit of the first was accepted before it.
        const succeeded = own.findIndex((e) => e.type === 'task.succeeded');
        const claimedAfter = own.slice(succeeded + 1).some((e) => e.type === 'task.claimed');
        if (succeeded >= 0 && claimedAfter) found.push(`${key}: claimed again after it succeeded`);
      }
    }
  }
  const seqs = state.feed.map((e) => e.seq as number);
  const logged = state.runs
    .flatMap((r) => r.events.map((e) => e.seq as number))
    .sort((a, b) => a - b);
  for (let i = 0; i < seqs.length; i++) {
    if (seqs[i] !== i + 1) {
      found.push(`the feed is not gap-free: position ${i} holds seq ${seqs[i]}`);
      break;
    }
  }
  // The workspace's own records (policy changes: credentials made, a profile set) belong to no
  // run; every other event the feed carried is in its run's log, and only those are.
  const ofRuns = state.feed.filter((e) => e.run_id !== '');
  const outsideRuns = state.feed.filter((e) => e.run_id === '' && e.type !== 'policy.changed');
  if (outsideRuns.length > 0) {
    found.push(
      `the feed carried events of no run other than policy changes: ${outsideRuns.map((e) => `${e.seq} ${e.type}`).join(', ')}`,
    );
  }
  if (ofRuns.length !== logged.length) {
    const inLogs = new Set(logged);
    const unlogged = ofRuns
      .filter((e) => !inLogs.has(e.seq as number))
      .map((e) => `${e.seq} ${e.type} (run ${e.run_id})`);
    found.push(
      `the feed carried ${ofRuns.length} events of runs, the runs' logs hold ${logged.length}; not in its run's log: ${unlogged.slice(0, 10).join(', ')}`,
    );
  }
  for (const id of ledger.created) {
    if (!state.runs.some((r) => r.run.id === id)) found.push(`run ${id} (created 201) is missing`);
  }
  return found;
}
