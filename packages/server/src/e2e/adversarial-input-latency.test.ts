import { Worker } from 'node:worker_threads';
import { decide, validateRuleList } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const sqlite = (await backends()).filter((backend) => backend.name === 'sqlite');

/** Hundreds of bash rules in the shapes real policies use, as many as fit the 64 KiB envelope. */
function shellRules(): unknown[] {
  const programs = [
    'git',
    'npm run',
    'pnpm',
    'cargo',
    'make',
    'docker',
    'kubectl',
    'go',
    'ls',
    'cat',
  ];
  const rules: unknown[] = [];
  let bytes = 2;
  for (let i = 0; ; i++) {
    const program = programs[i % programs.length]!;
    const rule =
      i % 10 < 3
        ? {
            tool: 'bash',
            path: 'command',
            match: `*${program} --danger-${i}*| sh*`,
            verdict: 'deny',
          }
        : i % 10 < 4
          ? { tool: 'bash', path: 'command', match: `*rm -rf /${i}*`, verdict: 'deny' }
          : { tool: 'bash', path: 'command', match: `${program} task-${i}*`, verdict: 'allow' };
    const size = JSON.stringify(rule).length + 1;
    if (bytes + size > 60_000) return rules;
    bytes += size;
    rules.push(rule);
  }
}

/**
 * About 900 KB the model composed: the later literals of every multi-literal
 * rule first, then every rule's first literal over and over between long runs
 * of one byte, so each literal occurs but no multi-literal rule matches (a
 * matcher that ran those globs would read the whole text for each), and a
 * lone surrogate at the end.
 */
function hostileCommand(rules: unknown[]): string {
  const parts = rules.map((rule) =>
    String((rule as { match: string }).match)
      .split('*')
      .filter((part) => part !== ''),
  );
  const head = parts.flatMap((literals) => literals.slice(1)).join(' ; ');
  const block = `${parts.map((literals) => literals[0]).join(' ; ')} ${'a'.repeat(4000)} `;
  const body = block.repeat(Math.ceil(900_000 / block.length));
  const text = `${head} ; ${body}`.slice(0, 900_000);
  return `${text}\uD800`;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/**
 * Posts from a worker thread, so that encoding and sending 900 KB costs the
 * test's own event loop nothing and only the kernel's work is measured.
 */
function postFromWorker(url: string, token: string, body: unknown): Promise<Answer> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     fetch(workerData.url, {
       method: 'POST',
       headers: { authorization: 'Bearer ' + workerData.token, 'content-type': 'application/json' },
       body: JSON.stringify(workerData.body),
     }).then(async (response) => parentPort.postMessage({ status: response.status, body: await response.json() }));`,
    { eval: true, workerData: { url, token, body } },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', (answer: Answer) => {
      void worker.terminate();
      resolve(answer);
    });
    worker.once('error', reject);
  });
}

/**
 * Sends the hostile create and, while it is in flight, GETs /openapi.json one
 * after another. Returns how much longer the slowest of those GETs took than
 * an idle one, and how many GETs ran while the create was pending.
 */
async function measureDelay(d: Deployment, rules: unknown[], command: string) {
  const open = () => d.agent.get('/openapi.json');
  const idle: number[] = [];
  for (let i = 0; i < 5; i++) idle.push(await timed(open));
  let pending = true;
  const created = postFromWorker(`${d.url}${d.ws}/runs`, d.tokens.agent, {
    approval_mode: 'rules',
    approval_rules: rules,
    input: 'x',
    provider: {
      kind: 'scripted',
      rounds: [{ tool_calls: [{ name: 'bash', input: { command } }] }, { final: 'f' }],
    },
  }).finally(() => {
    pending = false;
  });
  const started = performance.now();
  const during: number[] = [];
  while (pending) during.push(await timed(open));
  const elapsed = performance.now() - started;
  const answer = await created;
  return {
    created: answer,
    delay: Math.max(...during) - Math.min(...idle),
    overlapping: during.length,
    elapsed,
  };
}

for (const backend of sqlite) {
  describe('a hostile tool call does not stall the kernel', () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(backend);
    });
    afterAll(async () => {
      await d?.close();
    });

    it('a 900 KB command ending in a lone surrogate, against hundreds of bash rules, adds at most 50 ms to a concurrent GET over a one-rule control with the same body', async () => {
      const rules = shellRules();
      expect(rules.length).toBeGreaterThan(500);
      const command = hostileCommand(rules);
      expect(command.length).toBeGreaterThan(899_000);
      const policy = validateRuleList(rules);
      if (!policy.ok) throw new Error('the test rules should validate');
      const expected = decide(policy.value, {
        mode: 'rules',
        origin: 'model',
        toolName: 'bash',
        toolInput: { command },
      });
      expect(expected.matched.length).toBeGreaterThan(50);
      // The control posts the same body under one rule: what the kernel spends on a 900 KB
      // call anyway (reading, parsing and storing it); the evaluator may add at most 50 ms.
      const control = [{ tool: 'bash', verdict: 'deny' }];
      const hostile: number[] = [];
      const baseline: number[] = [];
      // Best of up to twelve pairs, stopping once the bests are within the bound: a loaded
      // 2-core machine can pause any process on its own.
      for (let attempt = 0; attempt < 12; attempt++) {
        const calm = await measureDelay(d, control, command);
        expect(calm.created.status).toBe(201);
        baseline.push(calm.delay);
        const { created, delay, overlapping, elapsed } = await measureDelay(d, rules, command);
        expect(created.status).toBe(201);
        expect(overlapping).toBeGreaterThan(0);
        expect(elapsed).toBeLessThan(10_000);
        hostile.push(delay);
        const tasks = (await d.member.get(`${d.ws}/runs/${created.body.id}/tasks`)).body.tasks;
        expect(tasks[0].state).toBe('failed');
        expect(tasks[0].error).toEqual(expected.error);
        if (Math.min(...hostile) - Math.min(...baseline) <= 50) break;
      }
      const show = (list: number[]) => list.map((ms) => ms.toFixed(1)).join(', ');
      console.log(
        `[adversarial input] slowest concurrent GET beyond an idle one, per attempt: hostile ${show(hostile)} ms; one-rule control ${show(baseline)} ms`,
      );
      // The evaluator's share, against the one-rule control measured in the same run, stays within
      // 50 ms. The absolute figure (body handling included) is printed above, not asserted: on a
      // shared 2-core machine the control alone measured 48-190 ms in this wave (see issue 24's
      // note: storing the 900 KB body is the open part), and a wall-clock bound there only flakes.
      expect(Math.min(...hostile) - Math.min(...baseline)).toBeLessThanOrEqual(50);
    }, 240_000);
  });
}
