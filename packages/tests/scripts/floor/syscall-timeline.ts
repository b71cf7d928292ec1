/*
 * Reads `perf trace` output into a timeline of system calls, and cuts one granted MCP call through
 * the gateway into the segments of its serial path (for trace-mcp-path.ts).
 */

/** One system call as `perf trace` printed it. */
export interface Syscall {
  /** When it started, in ms (perf's clock). */
  at: number;
  /** How long it took, in ms. */
  took: number;
  /** The thread that made it (a process's main thread has the process's id). */
  tid: number;
  name: string;
  /** Its file descriptor argument; 0 when perf printed none (it omits a zero). */
  fd: number;
  returned: number;
}

const LINE = /^\s*([\d.]+) \(\s*([\d.]*) ms\): [^/]+\/(\d+) (\w+)\((.*)\)\s+= (-?\d+)/;

/** The complete system calls of a `perf trace` output, in the order they started. */
export function parseTrace(text: string): Syscall[] {
  const calls: Syscall[] = [];
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (!match) continue;
    const [, at, took, tid, name, args, returned] = match;
    calls.push({
      at: Number(at),
      took: Number(took || 0),
      tid: Number(tid),
      name: name!,
      fd: Number(/fd: (\d+)/.exec(args!)?.[1] ?? 0),
      returned: Number(returned),
    });
  }
  return calls.sort((a, b) => a.at - b.at);
}

/** The processes of the path: the MCP client (the bench), the gateway, the kernel, the MCP server. */
export interface PathProcesses {
  client: number;
  gateway: number;
  kernel: number;
  server: number;
}

/** The segments of one call, in the order the call crosses them. */
export const SEGMENTS = [
  'client -> gateway (stdio hop)',
  'gateway: MCP request to submit sent',
  'gateway -> kernel (HTTP hop)',
  'kernel: request to COMMIT (fsync starts)',
  'kernel: fsync of the COMMIT',
  'kernel: fsync done to answer written',
  'kernel -> gateway (HTTP hop)',
  'gateway: answer read to tool call sent',
  'MCP server: tool call sent to result written',
  'MCP server -> gateway (stdio hop)',
  'gateway: tool result to MCP answer written',
  'gateway -> client (stdio hop)',
] as const;

const WRITES = new Set(['write', 'writev']);
const SYNCS = new Set(['fsync', 'fdatasync']);

/**
 * Cuts each call the client started (a write of a line to the gateway) into {@link SEGMENTS}, in
 * ms; a call whose steps cannot all be found (the trace cut it off) is left out.
 */
export function callSegments(calls: Syscall[], p: PathProcesses): number[][] {
  const found: number[][] = [];
  const next = (from: number | null, test: (call: Syscall) => boolean): number | null => {
    if (from === null) return null;
    for (let i = from + 1; i < Math.min(calls.length, from + 5000); i += 1) {
      if (test(calls[i]!)) return i;
    }
    return null;
  };
  const by = (tid: number, names: Set<string>, more: (call: Syscall) => boolean = () => true) => {
    return (call: Syscall) => call.tid === tid && names.has(call.name) && more(call);
  };
  calls.forEach((call, start) => {
    // A tools/call line is over 100 bytes; the initialized notification and the client's reads are not.
    if (call.tid !== p.client || !WRITES.has(call.name) || call.returned < 100) return;
    const arrived = next(
      start,
      by(p.gateway, new Set(['read']), (c) => c.returned > 0),
    );
    const submitted = next(
      arrived,
      by(p.gateway, WRITES, (c) => c.fd !== 1),
    );
    const received = next(
      submitted,
      by(p.kernel, new Set(['read']), (c) => c.returned > 0),
    );
    const synced = next(received, by(p.kernel, SYNCS));
    // The answer goes back on the connection the request came in on.
    const answered = next(
      synced,
      by(p.kernel, WRITES, (c) => c.fd === calls[received ?? 0]!.fd),
    );
    const heard = next(
      answered,
      by(p.gateway, new Set(['read']), (c) => c.returned > 0 && c.fd === calls[submitted ?? 0]!.fd),
    );
    const toolSent = next(
      heard,
      by(p.gateway, WRITES, (c) => c.fd !== 1 && c.fd !== calls[submitted ?? 0]!.fd),
    );
    const toolDone = next(
      toolSent,
      by(p.server, WRITES, (c) => c.fd === 1),
    );
    const toolHeard = next(
      toolDone,
      by(p.gateway, new Set(['read']), (c) => c.returned > 0),
    );
    const mcpAnswer = next(
      toolHeard,
      by(p.gateway, WRITES, (c) => c.fd === 1),
    );
    const clientHeard = next(
      mcpAnswer,
      by(p.client, new Set(['read']), (c) => c.returned > 0),
    );
    const steps = [
      start,
      arrived,
      submitted,
      received,
      synced,
      answered,
      heard,
      toolSent,
      toolDone,
      toolHeard,
      mcpAnswer,
      clientHeard,
    ];
    if (steps.some((step) => step === null)) return;
    // The moments the call crosses, in order: each step's start, and the fsync's end too.
    const sync = calls[synced!]!;
    const moments = steps.map((step) => calls[step!]!.at);
    moments.splice(5, 0, sync.at + sync.took);
    found.push(moments.slice(1).map((at, i) => at - moments[i]!));
  });
  return found;
}
