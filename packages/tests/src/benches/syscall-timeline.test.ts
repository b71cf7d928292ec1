import { describe, expect, it } from 'vitest';
import { callSegments, parseTrace, SEGMENTS } from '../../scripts/floor/syscall-timeline.js';

// One call as `perf trace -T` prints it: client 10, gateway 20, kernel 30 (its checkpointer 31),
// filesystem server 40; timestamps in ms.
const TRACE = `
  100.000 ( 0.010 ms): node/10 write(fd: 5, buf: 0x1, count: 122)                 = 122
  100.200 ( 0.010 ms): node/20 read(buf: 0x1, count: 65536)                      = 122
  100.900 ( 0.050 ms): node/20 writev(fd: 18, vec: 0x1, vlen: 3)                 = 383
  101.000 ( 0.010 ms): node/30 read(fd: 36, buf: 0x1, count: 65536)              = 383
  101.500 ( 0.300 ms): node/31 fsync(fd: 26)                                     = 0
  102.500 ( 0.600 ms): node/30 fsync(fd: 31)                                     = 0
  103.300 ( 0.020 ms): node/30 writev(fd: 38, vec: 0x1, vlen: 1)                 = 112
  103.400 ( 0.050 ms): node/30 writev(fd: 36, vec: 0x1, vlen: 2)                 = 2247
  103.500 ( 0.010 ms): node/20 read(fd: 25, buf: 0x1, count: 65536)              = 112
  103.550 ( 0.010 ms): node/20 read(fd: 18, buf: 0x1, count: 65536)              = 2247
  104.000 ( 0.010 ms): node/20 write(fd: 19, buf: 0x1, count: 118)               = 118
  104.100 ( 0.010 ms): node/40 read(buf: 0x1, count: 65536)                      = 118
  105.500 ( 0.010 ms): node/40 write(fd: 1, buf: 0x1, count: 122)                = 122
  105.600 ( 0.010 ms): node/20 read(fd: 26, buf: 0x1, count: 65536)              = 122
  106.000 ( 0.010 ms): node/20 write(fd: 1, buf: 0x1, count: 122)                = 122
  106.100 ( 0.010 ms): node/20 writev(fd: 18, vec: 0x1, vlen: 3)                 = 421
  106.200 ( 0.010 ms): node/10 read(fd: 7, buf: 0x1, count: 65536)               = 122
  106.300 (         ): node/30 fsync(fd: 31)                                  ...
`;

describe('syscall-timeline: one MCP call cut at the system calls between its processes', () => {
  it('follows the request and answer connections, the main thread fsync, and the stdio lines', () => {
    const calls = parseTrace(TRACE);
    // The unfinished fsync (no duration, no result) is not a call.
    expect(calls).toHaveLength(17);
    const [segments] = callSegments(calls, { client: 10, gateway: 20, kernel: 30, server: 40 });
    const byLabel = Object.fromEntries(SEGMENTS.map((label, i) => [label, segments?.[i]]));
    expect(byLabel).toEqual({
      'client -> gateway (stdio hop)': expect.closeTo(0.2, 6),
      'gateway: MCP request to submit sent': expect.closeTo(0.7, 6),
      'gateway -> kernel (HTTP hop)': expect.closeTo(0.1, 6),
      // The checkpointer thread's fsync is not the COMMIT's.
      'kernel: request to COMMIT (fsync starts)': expect.closeTo(1.5, 6),
      'kernel: fsync of the COMMIT': expect.closeTo(0.6, 6),
      // A frame on another connection (a feed) is not the answer.
      'kernel: fsync done to answer written': expect.closeTo(0.3, 6),
      'kernel -> gateway (HTTP hop)': expect.closeTo(0.15, 6),
      'gateway: answer read to tool call sent': expect.closeTo(0.45, 6),
      'MCP server: tool call sent to result written': expect.closeTo(1.5, 6),
      'MCP server -> gateway (stdio hop)': expect.closeTo(0.1, 6),
      'gateway: tool result to MCP answer written': expect.closeTo(0.4, 6),
      'gateway -> client (stdio hop)': expect.closeTo(0.2, 6),
    });
  });

  it('leaves out a call the trace cut off', () => {
    const cut = parseTrace(TRACE.split('\n').slice(0, 8).join('\n'));
    expect(callSegments(cut, { client: 10, gateway: 20, kernel: 30, server: 40 })).toEqual([]);
  });
});
