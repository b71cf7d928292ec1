import { connect, type Socket } from 'node:net';

/** A raw loopback connection: what the server sent, and whether it has closed. */
export interface RawConnection {
  socket: Socket;
  received(): string;
  closed: Promise<void>;
}

/** Opens a raw TCP connection to a kernel's address, for requests no HTTP client would send. */
export function openRaw(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', () => {});
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

/**
 * Sends a whole request (head, then body) before reading anything, as
 * Python's http.client does, and resolves with what was read after it, or
 * `error CODE` when the connection failed first (a reset while writing).
 */
export function writeWholeThenRead(url: string, head: string, body: Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.pause();
    let text = '';
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code}`));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(text));
    socket.write(head);
    socket.write(body, () => socket.resume());
  });
}
