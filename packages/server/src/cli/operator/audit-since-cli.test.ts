import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import {
  plantCalls,
  runOperatorCli,
  sqliteBackend,
  waitForDecisions,
} from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();

/** The records of an export's JSON lines. */
function recordsOf(stdout: string): { seq: number; at: number; run_id: string }[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

// Each step starts the CLI in a child process: slow on a loaded machine, so a wide bound.
describe('airlock audit export --run keeps --since', { timeout: 180_000 }, () => {
  let d: Deployment;
  let runId: string;

  beforeAll(async () => {
    d = await deploy(sqlite);
    runId = await plantCalls(d, [{ name: 'bash', input: { command: 'rm -rf build' }, id: 'c1' }]);
    await waitForDecisions(d, 1);
    const [row] = (await d.member.get(`${d.ws}/decisions`)).body.decisions as { key: string }[];
    // Decided from another process, after the park was recorded: a later time than the park's.
    expect((await runOperatorCli(d, ['decisions', 'approve', runId, row!.key])).code).toBe(0);
  });
  afterAll(async () => {
    await d?.close();
  });

  it("writes only the run's decisions from that time on, as the workspace export does", async () => {
    const whole = await runOperatorCli(d, ['audit', 'export', '--run', runId]);
    expect(whole.code).toBe(0);
    const all = recordsOf(whole.stdout);
    const last = all.at(-1)!;
    expect(all[0]!.at).toBeLessThan(last.at);
    const since = new Date(last.at).toISOString();

    const bounded = await runOperatorCli(d, ['audit', 'export', '--run', runId, '--since', since]);
    expect(bounded.code).toBe(0);
    const kept = recordsOf(bounded.stdout);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(all.length);
    for (const record of kept) expect(record.at).toBeGreaterThanOrEqual(last.at);

    // The kernel's own reading of --since, for the whole workspace, narrowed to the run.
    const workspace = await runOperatorCli(d, ['audit', 'export', '--since', since]);
    expect(kept).toEqual(recordsOf(workspace.stdout).filter((record) => record.run_id === runId));
  });
});
