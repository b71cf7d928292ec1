import { describe, expect, it } from 'vitest';
import { eventView } from '../kernel/views.js';
import { FeedItem, type FeedRow } from './feed-item.js';

function row(data: unknown, over: Partial<FeedRow> = {}): FeedRow {
  return {
    seq: 41,
    run_id: 'run_1',
    task_key: 't_1',
    type: 'task.parked',
    data: JSON.stringify(data),
    principal: 'member:cred_1',
    created_at: 1_764_000_000_123,
    ...over,
  };
}

describe('FeedItem', () => {
  const cases: [string, FeedRow][] = [
    ['a task event', row({ tool_name: 'Bash', tool_input: { command: 'rm -r ./build' } })],
    [
      'text a JSON string must escape',
      row({ detail: 'quote " backslash \\ newline \n tab \t \u2028 é 😀 \u0001' }),
    ],
    ['no task and no principal', row({}, { task_key: null, principal: null, run_id: '' })],
    ['deep and mixed data', row({ a: [1, 2.5, null, true, { b: 'c' }], n: -0.001, big: 1e21 })],
  ];

  it.each(cases)('builds the same frame as stringifying the view: %s', (_, stored) => {
    const item = new FeedItem(stored);
    expect(item.frame).toBe(JSON.stringify({ type: 'event', event: eventView(stored) }));
    expect(JSON.parse(item.frame)).toEqual({ type: 'event', event: item.view });
  });

  it('keeps the stored order of keys that JSON.parse would move (integer-like keys)', () => {
    const stored = row({ b: 1, '2': 'two' });
    const item = new FeedItem(stored);
    // Parsing moves "2" first; the frame carries the stored text, which means the same.
    expect(item.frame).toContain(`"data":${stored.data}`);
    expect(JSON.parse(item.frame).event).toEqual(eventView(stored));
  });

  it('writes the frame as one unmasked WebSocket text frame of those bytes', () => {
    const item = new FeedItem(row({ text: 'x'.repeat(200) }));
    const wire = item.wireFrame;
    expect(wire[0]).toBe(0x81);
    expect(wire[1]).toBe(126);
    expect(wire.readUInt16BE(2)).toBe(Buffer.byteLength(item.frame));
    expect(wire.subarray(4).toString('utf8')).toBe(item.frame);
  });
});
