import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import type { FeedItem } from './feed-item.js';

/** Past this much unsent data a slow client is dropped; it resumes from its last sequence number. */
export const MAX_BUFFERED = 8 * 1024 * 1024;

/**
 * Writes a feed socket's event frames, prebuilt (the same bytes for every
 * subscriber), coalescing every batch delivered in one turn of the event loop
 * into one write: under load a group commit settles several units of work in
 * one turn, and each delivers its own batch, so a subscriber of every event
 * would otherwise cost the kernel a socket write (a system call, and on
 * loopback the receiver's side of TCP too) per unit of work. A client too far
 * behind is dropped instead; it resumes from its last sequence number.
 */
export class FrameWriter {
  #pending: FeedItem[] = [];
  #scheduled = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly tooFarBehind: () => void,
  ) {}

  push(items: readonly FeedItem[]): void {
    for (const item of items) this.#pending.push(item);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  /**
   * Writes what waits now, and resolves once the socket has handed all of
   * it to the operating system (its 'drain'), or has closed: a catch-up
   * awaits this between pages, so it reads the log no faster than its
   * client reads the socket and holds at most a page in memory for it.
   * Resolves true when it waited for a drain (the client read what waited),
   * false when nothing waited or the socket closed. A client that reads
   * nothing never drains; it is ended by the heartbeat (it answers no ping),
   * and its close resolves this.
   */
  async drained(): Promise<boolean> {
    this.#flush();
    const socket = this.#socket();
    if (!socket || socket.destroyed || !socket.writableNeedDrain) return false;
    return new Promise<boolean>((resolve) => {
      const done = (drained: boolean) => () => {
        socket.off('drain', onDrain);
        socket.off('close', onClose);
        resolve(drained);
      };
      const onDrain = done(true);
      const onClose = done(false);
      socket.on('drain', onDrain);
      socket.on('close', onClose);
    });
  }

  /**
   * Writes what waits now, then a last frame, then closes: a refusal comes
   * after every event frame handed over before it.
   */
  finish(frame: string, close: () => void): void {
    this.#flush();
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(frame);
    close();
  }

  /** Writes what waits, as one write; drops it if the socket closed meanwhile. */
  #flush(): void {
    this.#scheduled = false;
    const items = this.#pending;
    this.#pending = [];
    const ws = this.ws;
    if (items.length === 0 || ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED) {
      this.tooFarBehind();
      return;
    }
    const socket = this.#socket();
    if (!socket) {
      for (const item of items) ws.send(item.frame);
      return;
    }
    socket.write(
      items.length === 1 ? items[0]!.wireFrame : Buffer.concat(items.map((item) => item.wireFrame)),
    );
  }

  /**
   * ws's net.Socket (`_socket`, no public accessor). Without permessage-deflate, ws writes
   * each frame to it synchronously too, so a whole frame written here never interleaves.
   */
  #socket(): Duplex | undefined {
    return (this.ws as unknown as { _socket?: Duplex })._socket;
  }
}
