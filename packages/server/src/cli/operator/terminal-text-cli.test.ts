import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperatorInProcess } from '../../testing/cli-in-process.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import {
  plantCalls,
  runOperatorCli,
  sqliteBackend,
  waitForDecisions,
} from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();

/** An escape (red text), a C1 CSI (clear screen), a right-to-left override, and a forged line. */
const HOSTILE = 'rm\u001b[31m\u009b2J\u202eevil\nforged line';
/** What a terminal may safely show of every part of a hostile text. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

// The last cases start the CLI in a child process: slow on a loaded machine, so a wide bound.
describe('human CLI output escapes terminal control sequences', { timeout: 180_000 }, () => {
  let d: Deployment;
  let runId: string;

  beforeAll(async () => {
    d = await deploy(sqlite);
    runId = await plantCalls(d, [
      { name: HOSTILE, input: { command: HOSTILE }, id: 'c1' },
      { name: 'bash', input: { command: 'ls' }, id: 'c2' },
    ]);
    await waitForDecisions(d, 2);
  });
  afterAll(async () => {
    await d?.close();
  });

  it('in decisions list and runs show, and keeps the text as it is in --json', async () => {
    const listed = await runOperatorInProcess(d, ['decisions', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toMatch(RAW);
    expect(listed.stdout).toContain('rm\\x1b[31m\\x9b2J\\u202eevil\\nforged line');
    expect(listed.stdout).not.toMatch(/^forged line/m);
    const json = await runOperatorInProcess(d, ['decisions', 'list', '--json']);
    expect(
      JSON.parse(json.stdout).decisions.map((row: { tool_name: string }) => row.tool_name),
    ).toContain(HOSTILE);
    // The same value, its C1 controls and bidirectional marks written as \u escapes: JSON on a
    // terminal is read by a person too.
    expect(json.stdout).not.toMatch(RAW);
    expect(json.stdout).toContain('rm\\u001b[31m\\u009b2J\\u202eevil\\nforged line');
    const shown = await runOperatorInProcess(d, ['runs', 'show', runId]);
    expect(shown.stdout).not.toMatch(RAW);
    expect(shown.stdout).toContain('rm\\x1b[31m');
  });

  it('in a reason, a label and an error detail', async () => {
    const [hostile] = (await d.member.get(`${d.ws}/decisions`)).body.decisions as { key: string }[];
    const denied = await runOperatorInProcess(d, [
      'decisions',
      'deny',
      runId,
      hostile!.key,
      '--reason',
      'no\u001b]0;pwned\u0007 way',
    ]);
    expect(denied.code).toBe(0);
    const shown = await runOperatorInProcess(d, ['runs', 'show', runId]);
    expect(shown.stdout).not.toMatch(RAW);
    const made = await d.member.post(`${d.ws}/credentials`, {
      kind: 'member',
      agent_application_id: null,
      label: 'ops',
    });
    const labeled = await runOperatorInProcess(d, [
      'tokens',
      'label',
      made.body.credential_id,
      'Ana\u202eLima',
    ]);
    expect(labeled.stdout).not.toMatch(RAW);
    const tokens = await runOperatorInProcess(d, ['tokens', 'list']);
    expect(tokens.stdout).not.toMatch(RAW);
    const missing = await runOperatorInProcess(d, ['runs', 'show', 'run_\u001b[2Jx']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).not.toMatch(RAW);
    const audit = await runOperatorInProcess(d, ['audit', 'export', '--run', runId]);
    expect(audit.code).toBe(0);
    expect(audit.stdout).toContain('no\\u001b]0;pwned\\u0007 way');
    expect(audit.stdout).not.toMatch(RAW);
  });

  it('in a table cell, where a tab would fake a column', async () => {
    const fake = 'Ana\tactive\tforged';
    // A label is one line of text: the kernel refuses a tab in it, changing nothing.
    const made = await d.member.post(`${d.ws}/credentials`, {
      kind: 'member',
      agent_application_id: null,
      label: fake,
    });
    expect(made.status).toBe(400);
    expect(JSON.stringify(made.body)).toContain('control character');
    const app = await d.member.post(`${d.ws}/agent_applications`, { name: fake });
    expect(app.status).toBe(201);
    const apps = await runOperatorInProcess(d, ['apps', 'list']);
    const appRow = apps.stdout.split('\n').find((line) => line.startsWith(app.body.id));
    expect(appRow?.split('\t')).toEqual([app.body.id, 'active', 'Ana\\tactive\\tforged']);
    const json = await runOperatorInProcess(d, ['apps', 'list', '--json']);
    expect(json.stdout).toContain(JSON.stringify(fake));
  });

  // The real CLI in a child process prints what the command printed in-process (the cases
  // above run it in-process, as cli.ts runs it: testing/cli-in-process.ts).
  it.each([[['decisions', 'list']], [['runs', 'show', 'run_\u001b[2Jx']]])(
    'the spawned CLI prints %j as the command does in-process',
    async (args) => {
      const spawned = await runOperatorCli(d, args);
      expect(spawned).toEqual(await runOperatorInProcess(d, args));
      expect(spawned.stdout + spawned.stderr).not.toMatch(RAW);
    },
  );
});
