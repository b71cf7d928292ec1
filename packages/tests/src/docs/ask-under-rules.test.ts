import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import { REPO_ROOT } from './samples.js';

interface Task {
  key: string;
  kind: string;
  state: string;
  tool_name: string;
  prompt?: string | null;
  options?: string[] | null;
  error?: { code: string; detail: string } | null;
}

describe('how a model asks a question, as docs/concepts.md says', () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startTestKernel();
  });
  afterAll(async () => {
    await kernel?.close();
  });

  /** Starts a run whose model calls `ask` once and returns its first task once it settles. */
  async function askUnder(mode: string, rules: unknown[], input: unknown): Promise<Task> {
    const base = `${kernel.url}/api/v1/workspaces/${kernel.workspace.id}`;
    const headers = {
      authorization: `Bearer ${kernel.workspace.tokens.member}`,
      'content-type': 'application/json',
    };
    const created = await fetch(`${base}/runs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        approval_mode: mode,
        approval_rules: rules,
        provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'ask', input }] }] },
      }),
    });
    expect(created.status).toBe(201);
    const run = (await created.json()) as { id: string };
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const response = await fetch(`${base}/runs/${run.id}/tasks`, { headers });
      const { tasks } = (await response.json()) as { tasks: Task[] };
      const first = tasks[0];
      if (first && first.state !== 'pending' && first.state !== 'runnable') return first;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the ask call never settled');
  }

  const question = { prompt: 'Which branch?', options: ['main', 'release'] };

  it('under rules mode, an ask the rules do not name is refused', async () => {
    const task = await askUnder('rules', [{ tool: 'read_file', verdict: 'allow' }], question);
    expect(task.state).toBe('failed');
    expect(task.error?.code).toBe('approval_denied');
  });

  it('an allow rule naming ask makes it the question itself, with its prompt and options', async () => {
    const task = await askUnder('rules', [{ tool: 'ask', verdict: 'allow' }], question);
    expect(task.kind).toBe('ask');
    expect(task.state).toBe('awaiting_input');
  });

  it('an input outside {prompt, options?, multi?} fails with invalid_question', async () => {
    const task = await askUnder('ask', [], { prompt: 'Pick', multi: true });
    expect(task.state).toBe('failed');
    expect(task.error?.code).toBe('invalid_question');
    expect(task.error?.detail).toContain('multi needs options');
  });

  it('the docs state the input shape and the rule rules mode needs', () => {
    const page = readFileSync(join(REPO_ROOT, 'docs', 'concepts.md'), 'utf8');
    expect(page).toContain('`{prompt, options?, multi?}`');
    expect(page).toMatch(/Under `rules`\s+mode[\s\S]*?a rule allows the `ask` tool/);
    expect(page).toContain('{"tool": "ask", "verdict": "allow"}');
  });
});
