import { AirlockError, type TaskView } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { cancelReason, cancelRow } from './client-cancel.js';

describe("a client's reason for a cancellation, as the kernel keeps it", () => {
  it('quotes the reason a client gave, and says so when it gave none', () => {
    expect(cancelReason('the user typed /stop')).toBe(
      'the MCP client canceled the call: the user typed /stop',
    );
    for (const none of [undefined, '', '   ', new DOMException('aborted', 'AbortError'), 42]) {
      expect(cancelReason(none)).toBe('the MCP client canceled the call (notifications/cancelled)');
    }
  });

  it('drops what the kernel would refuse, and cuts a long reason between whole characters', () => {
    expect(cancelReason('a\u0000b\ud800c')).toBe('the MCP client canceled the call: ab\ufffdc');
    const long = cancelReason('😀'.repeat(3000));
    expect(long.length).toBeLessThanOrEqual(4096);
    expect(long.endsWith('😀')).toBe(true);
    expect(cancelReason('x'.repeat(10_000)).length).toBeLessThanOrEqual(4096);
  });
});

describe('a cancellation a kernel older than reasons refuses for its reason', () => {
  it('is sent again without the reason: the call is canceled all the same', async () => {
    const sent: (string | undefined)[] = [];
    const olderKernel = {
      async cancelCall(runId: string, taskKey: string, reason?: string) {
        sent.push(reason);
        if (reason !== undefined) {
          throw new AirlockError({
            code: 'invalid_input',
            detail: 'unknown key reason',
            status: 400,
          });
        }
        return { run_id: runId, key: taskKey, state: 'canceled' } as TaskView;
      },
    };
    const task = { run_id: 'run_1', key: 't1' } as TaskView;
    const landed = await cancelRow(olderKernel, task, new AbortController().signal, 'why');
    expect(landed).toBe(true);
    expect(sent).toEqual(['why', undefined]);
  });
});
