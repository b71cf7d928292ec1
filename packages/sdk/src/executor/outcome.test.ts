import { OPERATION_CONTRACTS } from '@airlock/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TaskView } from '../views.js';
import { checkedOutcome, resultOutcome, ToolError, thrownOutcome } from './outcome.js';

/** The body the kernel's commit takes (core's contract), for a made-up claim. */
const commitInput = OPERATION_CONTRACTS['executor.commit'].input;
const address = { run_id: 'run_1', task_key: 't1', claim_id: 'claim_1' };

/** Anything a handler may throw: values of every shape, ToolErrors with any code, odd messages. */
const thrown = fc.oneof(
  fc.anything(),
  fc
    .record({ code: fc.string({ maxLength: 200 }), message: fc.string() })
    .map(({ code, message }) => new ToolError(code, message)),
  fc.anything().map((message) => ({ message })),
  fc.constant(Object.create(null)),
  fc.constant(new ToolError(undefined as never, 'no code')),
);

describe('executor outcomes', () => {
  it('turns anything thrown into a failure the kernel takes', () => {
    fc.assert(
      fc.property(thrown, (reason) => {
        const outcome = thrownOutcome(reason);
        expect(outcome.outcome).toBe('failed');
        expect(commitInput.safeParse({ ...address, ...outcome }).success).toBe(true);
      }),
    );
  });

  it('is a failure the kernel records as it is, whatever text it holds (what onRan tells is what the row reads)', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(text, text, (code, message) => {
        const outcome = thrownOutcome(new ToolError(code, message));
        const kept = commitInput.parse({ ...address, ...outcome });
        expect(kept.error).toEqual(outcome.outcome === 'failed' ? outcome.error : null);
      }),
    );
    expect(thrownOutcome(new ToolError('bad\u0000', 'a\u0000b\ud800'))).toMatchObject({
      error: { code: 'invalid_result', detail: expect.stringMatching(/: a\uFFFDb\uFFFD$/) },
    });
  });

  it('keeps a ToolError code the kernel takes, and names one it does not', () => {
    expect(thrownOutcome(new ToolError('not_found', 'gone'))).toEqual({
      outcome: 'failed',
      error: { code: 'not_found', detail: 'gone' },
    });
    expect(thrownOutcome(new ToolError('', 'no code'))).toEqual({
      outcome: 'failed',
      error: {
        code: 'invalid_result',
        detail:
          'the tool threw a ToolError whose code "" is not 1 to 100 characters without NUL or a lone surrogate: no code',
      },
    });
    expect(thrownOutcome({ message: 5 })).toEqual({
      outcome: 'failed',
      error: { code: 'tool_failed', detail: '5' },
    });
  });

  it('commits a JSON result as it is, and a value JSON cannot carry as invalid_result', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        // As JSON carries it: a -0 is the 0 JSON writes, as the kernel records it.
        expect(resultOutcome(value).outcome).toEqual({
          outcome: 'succeeded',
          result: JSON.parse(JSON.stringify(value ?? null)),
        });
      }),
    );
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    const noText = [() => 1, Symbol('s'), { toJSON: () => undefined }];
    for (const value of [{ count: 1n }, cyclic, ...noText]) {
      const { outcome } = resultOutcome(value);
      expect(outcome).toMatchObject({ outcome: 'failed', error: { code: 'invalid_result' } });
      expect(commitInput.safeParse({ ...address, ...outcome }).success).toBe(true);
    }
  });

  it("judges a hook's result against the executor's body limit, as a tool's", () => {
    const hook = { kind: 'hook', tool_input: { event: 'stop' } } as unknown as TaskView;
    const answer = { continue: true, feedback: 'x'.repeat(6000) };
    expect(checkedOutcome(hook, answer, 1024 * 1024).commitsAsIs).toBe(true);
    const small = checkedOutcome(hook, answer, 8192);
    expect(small.outcome.outcome).toBe('succeeded');
    expect(small.commitsAsIs).toBe(false);
  });

  it('commits (and onRan tells) the result as JSON carries it, as it was when the handler returned', () => {
    const returned = {
      at: new Date(0),
      ratio: Number.NaN,
      gone: undefined,
      seen: new Set(['a']),
      own: { toJSON: () => 'as text' },
      list: [1, undefined],
    };
    const { outcome } = resultOutcome(returned);
    returned.list.push(3);
    expect(outcome).toEqual({
      outcome: 'succeeded',
      result: {
        at: '1970-01-01T00:00:00.000Z',
        ratio: null,
        seen: {},
        own: 'as text',
        list: [1, null],
      },
    });
    const result = (outcome as { result: Record<string, unknown> }).result;
    expect(Object.keys(result)).toEqual(['at', 'ratio', 'seen', 'own', 'list']);
    expect(typeof result.at).toBe('string');
  });
});
