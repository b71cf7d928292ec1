import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** One line a logger wrote, parsed from its JSON. */
export type LogLine = Record<string, unknown> & { msg: string; level: number };

/** A real pino logger whose lines are kept, parsed, in `lines` (tests only). */
export function capturedLogger(level: pino.Level = 'info'): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}
