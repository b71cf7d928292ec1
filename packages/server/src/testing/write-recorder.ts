import { Socket } from 'node:net';
import pg from 'pg';

/** What {@link recordWrites} saw: each socket write to the port, as the SQL it carried. */
export interface RecordedWrites {
  /** One entry per write to the database (one network round trip), listing its statements. */
  readonly writes: string[][];
  /** Puts the socket and driver methods back; call it in a `finally`. */
  stop(): void;
}

/**
 * Records what this process sends to the PostgreSQL server on `port`, write by
 * write: the SQL of each statement the `pg` driver is handed, grouped by the
 * socket write that carried it, so a test can count round trips. It patches
 * `Socket` and `pg.Client` prototypes process-wide until `stop()`.
 */
export function recordWrites(port: number): RecordedWrites {
  const socket = Socket.prototype as unknown as Record<
    '_write' | '_writev',
    (...args: unknown[]) => unknown
  >;
  const client = pg.Client.prototype as unknown as { query(...args: unknown[]): unknown };
  const originals = { _write: socket._write, _writev: socket._writev };
  const query = client.query;
  const writes: string[][] = [];
  const pending: string[] = [];
  for (const method of ['_write', '_writev'] as const) {
    const original = originals[method];
    socket[method] = function (this: Socket, ...args: unknown[]) {
      if (this.remotePort === port) writes.push(pending.splice(0));
      return original.apply(this, args);
    };
  }
  client.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    pending.push(typeof first === 'string' ? first : (first?.text ?? ''));
    return query.apply(this, args);
  };
  return {
    writes,
    stop() {
      Object.assign(socket, originals);
      client.query = query;
    },
  };
}
