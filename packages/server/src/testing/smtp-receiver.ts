import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message the SMTP server accepted. */
export interface Mail {
  from: string;
  to: string[];
  raw: string;
}

/** A recipient the server is slow on: never answered, or its first RCPT TO only after `firstAnswerAfterMs`. */
export type Stall = string | { address: string; firstAnswerAfterMs: number };

/**
 * A real SMTP server (smtp-server) on loopback, or on `listen` (an address
 * of this machine), offering neither STARTTLS nor AUTH, keeping every
 * message it accepts; it stalls on the RCPT TO of the `stalls` address, and
 * refuses (550) the RCPT TO of an address in `refused` while it is there.
 */
export async function startSmtp(
  stalls?: Stall,
  listen = '127.0.0.1',
): Promise<{ port: number; mails: Mail[]; refused: Set<string>; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const refused = new Set<string>();
  const stall = typeof stalls === 'string' ? { address: stalls, firstAnswerAfterMs: null } : stalls;
  const timers = new Set<NodeJS.Timeout>();
  let stalled = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 100,
    onRcptTo(address, _session, callback) {
      if (refused.has(address.address)) {
        return callback(Object.assign(new Error('no such mailbox'), { responseCode: 550 }));
      }
      if (address.address !== stall?.address) return callback();
      stalled += 1;
      if (stall.firstAnswerAfterMs === null) return;
      if (stalled > 1) return callback();
      const timer = setTimeout(() => {
        timers.delete(timer);
        callback();
      }, stall.firstAnswerAfterMs);
      timers.add(timer);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, listen, () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    refused,
    close: () => {
      for (const timer of timers) clearTimeout(timer);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The text body of a plain-text message, soft line breaks of quoted-printable undone. */
export function bodyOf(raw: string): string {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  return /quoted-printable/i.test(raw)
    ? body
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)))
    : body;
}
