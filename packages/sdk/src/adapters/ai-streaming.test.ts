import { describe, expect, it } from 'vitest';
import { runGrantedStream, settled } from './ai-streaming.js';
import type { CallVerdict, FrameworkSession } from './session.js';

const call = { name: 'lookup', input: { q: 1 }, callId: 'c1' };
const allow: CallVerdict = {
  verdict: 'allow',
  reason: null,
  taskKey: 't1',
  runId: 'run_1',
  requiresUser: false,
};

/** A session that only keeps what it was told ran. */
function recordingSession() {
  const reports: { ok: boolean; output: unknown }[] = [];
  const session = {
    ran: async (_call: unknown, ran: (typeof reports)[number]) => reports.push(ran),
  };
  return { reports, session: session as unknown as FrameworkSession };
}

describe('runGrantedStream', () => {
  it('reports a stream left before its end as failed, not as running forever', async () => {
    const { reports, session } = recordingSession();
    const stream = runGrantedStream(session, call, allow, async function* () {
      yield 1;
      yield 2;
    });
    expect(await stream.next()).toEqual({ value: 1, done: false });
    await stream.return(undefined);
    expect(reports).toEqual([{ ok: false, output: 'the tool was stopped before its end' }]);
  });

  it('runs a person-edited input and reports the last value once', async () => {
    const { reports, session } = recordingSession();
    const seen: unknown[] = [];
    const values: unknown[] = [];
    for await (const value of runGrantedStream(
      session,
      call,
      { ...allow, updatedInput: { q: 2 } },
      async function* (input) {
        seen.push(input);
        yield 'a';
        yield 'b';
      },
    )) {
      values.push(value);
    }
    expect(seen).toEqual([{ q: 2 }]);
    expect(values).toEqual(['a', 'b']);
    expect(reports).toEqual([{ ok: true, output: 'b' }]);
  });
});

describe('settled', () => {
  it('runs an async iterable a plain function returned to its end and answers its last value', async () => {
    async function* values() {
      yield 1;
      yield 2;
    }
    expect(await settled(values())).toBe(2);
    expect(await settled(Promise.resolve({ ok: true }))).toEqual({ ok: true });
  });
});
