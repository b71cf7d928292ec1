import { describe, expect, it } from 'vitest';
import { cancelReason } from './client-cancel.js';

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
