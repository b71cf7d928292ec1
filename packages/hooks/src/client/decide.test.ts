import { describe, expect, it } from 'vitest';
import { claudeCode } from '../agents/claude-code.js';
import type { KernelAnswer, NeutralEvent } from '../agents/types.js';
import { decide } from './decide.js';
import { KernelUnavailable } from './kernel-call.js';

const parked: KernelAnswer = {
  verdict: 'wait',
  reason: 'waiting for approval',
  run_id: 'run_1',
  conversation_id: 'conv_1',
  task_key: 't1',
  task_state: 'needs_approval',
  requires_user: false,
  reminders: [],
};

const preTool: NeutralEvent = {
  agent: 'claude-code',
  session_id: 's1',
  event: 'pre_tool',
  tool_name: 'Bash',
  tool_input: { command: 'make deploy' },
};

/** decide() with a kernel that parks the call, then fails the next poll with `failure`. */
async function parkThenFail(failure: Error, event: NeutralEvent = preTool) {
  const budgets: number[] = [];
  const reply = await decide(claudeCode, event, {
    kernel: { url: 'http://127.0.0.1:9', token: 'alk_agent_x' },
    waitMs: 60_000,
    pollMs: 1,
    send: async (_event, timeoutMs) => {
      budgets.push(timeoutMs);
      if (budgets.length === 1) return parked;
      throw failure;
    },
  });
  return { reply, budgets };
}

describe('a parked call whose poll outlives what is left of the wait', () => {
  it('is refused with the waiting reason (the model retries after approval), not as undecidable', async () => {
    const { reply, budgets } = await parkThenFail(
      new KernelUnavailable('the kernel did not answer within 12 ms', 'timeout'),
    );
    expect(budgets).toHaveLength(2);
    expect(reply.kind).toBe('deny');
    expect(reply.kind === 'deny' && reply.reason).toContain(
      "this call waits for a person's approval (run run_1, task t1)",
    );
  });

  it('is still refused as undecidable when the kernel is gone, not slow', async () => {
    const { reply } = await parkThenFail(
      new KernelUnavailable('connect ECONNREFUSED 127.0.0.1:9', 'unreachable'),
    );
    expect(reply.kind === 'deny' && reply.reason).toContain(
      'Airlock could not decide this call, so it was not run: connect ECONNREFUSED',
    );
  });
});

describe('a poll answered about another row', () => {
  const pollAnsweredWith = (answer: KernelAnswer) =>
    decide(claudeCode, preTool, {
      kernel: { url: 'http://127.0.0.1:9', token: 'alk_agent_x' },
      waitMs: 60_000,
      pollMs: 1,
      send: async (sent) => (sent.task_key === undefined ? parked : answer),
    });

  it("refuses the call: an allow of another task or run is not this call's", async () => {
    const granted: KernelAnswer = { ...parked, verdict: 'allow', task_state: 'claimed' };
    for (const other of [
      { ...granted, task_key: 't9' },
      { ...granted, run_id: 'run_2' },
    ]) {
      const reply = await pollAnsweredWith(other);
      expect(reply.kind).toBe('deny');
      expect(reply.kind === 'deny' && reply.reason).toContain('not the call it holds');
    }
    // The same row's allow is the answer.
    expect((await pollAnsweredWith(granted)).kind).toBe('allow');
  });
});

describe('a parked call asked about again', () => {
  it("names the run with the task key, so another turn's row under that key cannot answer", async () => {
    const sent: NeutralEvent[] = [];
    const granted: KernelAnswer = { ...parked, verdict: 'allow', task_state: 'claimed' };
    const reply = await decide(claudeCode, preTool, {
      kernel: { url: 'http://127.0.0.1:9', token: 'alk_agent_x' },
      waitMs: 60_000,
      pollMs: 1,
      send: async (event) => {
        sent.push(event);
        return sent.length === 1 ? parked : granted;
      },
    });
    expect(reply.kind).toBe('allow');
    expect(sent[0]).not.toHaveProperty('run_id');
    expect(sent[1]).toMatchObject({ task_key: 't1', run_id: 'run_1' });
  });
});

describe('a wait that is not a number of milliseconds', () => {
  it('refuses the call at once without asking the kernel (no deadline could be kept)', async () => {
    let sent = 0;
    const reply = await decide(claudeCode, preTool, {
      kernel: { url: 'http://127.0.0.1:9', token: 'alk_agent_x' },
      waitMs: '3000' as unknown as number,
      send: async () => {
        sent += 1;
        return parked;
      },
    });
    expect(sent).toBe(0);
    expect(reply.kind === 'deny' && reply.reason).toContain(
      'the wait 3000 is not a number of milliseconds',
    );
  });
});
