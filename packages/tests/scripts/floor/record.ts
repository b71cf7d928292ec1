/*
 * The benches' side of the record server (record-server.ts): start one in a process of its own,
 * and ask it about a call the way an application would ask a remote approval service.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';

/** A running record server. */
export interface RecordServer {
  url: string;
  pid: number | undefined;
  close(): void;
}

/**
 * Starts a record server: `file` set, each answer waits for 13 pages written there and fsynced;
 * `sync: false` skips the fsync; no file, it answers at once.
 */
export async function startRecordServer(
  options: { file?: string; sync?: boolean } = {},
): Promise<RecordServer> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./record-server.ts', import.meta.url)), {
    execArgv: ['--conditions=source', '--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: {
      ...process.env,
      ...(options.file ? { RECORD_FILE: options.file } : {}),
      RECORD_SYNC: options.sync === false ? '0' : '1',
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the record server exited (${code})`)));
    child.once('message', (message: { port: number }) => resolve(message.port));
  });
  return { url: `http://127.0.0.1:${port}/`, pid: child.pid, close: () => child.disconnect() };
}

/** One POST of a call to the record server on a kept-alive connection; resolves on its grant. */
export function recordAsker(url: string): (call: unknown) => Promise<void> {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return (call) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(call);
      const sent = request(
        {
          host: target.hostname,
          port: target.port,
          path: '/',
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
              verdict: string;
            };
            if (answer.verdict === 'allow') resolve();
            else reject(new Error('the record server refused'));
          });
        },
      );
      sent.on('error', reject);
      sent.end(body);
    });
}
