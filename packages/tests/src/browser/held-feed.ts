import type { Page, WebSocketRoute } from 'playwright-core';

/** A page's feed sockets held back from the kernel until {@link HeldFeed.release}. */
export interface HeldFeed {
  /** Connects every held socket to the kernel, sending what the page sent meanwhile, in order. */
  release(): void;
}

/**
 * Holds back every WebSocket the page opens (those whose URL `holds`): the page sees it open,
 * but what it sends waits and the kernel sees nothing until `release`, so a test can act on
 * what the page drew before its feed is live.
 */
export async function holdFeed(
  page: Page,
  holds: (url: URL) => boolean = () => true,
): Promise<HeldFeed> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.routeWebSocket(
    (url) => holds(url),
    (socket: WebSocketRoute) => {
      const early: (string | Buffer)[] = [];
      let server: WebSocketRoute | null = null;
      socket.onMessage((message) => (server ? server.send(message) : early.push(message)));
      void held.then(() => {
        server = socket.connectToServer();
        server.onMessage((message) => socket.send(message));
        server.onClose((code, reason) => socket.close({ code, reason }));
        for (const message of early.splice(0)) server.send(message);
      });
    },
  );
  return { release };
}

/** A page's feed sockets that a test can drop, and let the page reconnect once it says so. */
export interface DroppableFeed {
  /** Closes every socket as a dropped connection would; the page's new ones wait for {@link restore}. */
  drop(): Promise<void>;
  /** Lets the page's sockets opened since the drop through to the kernel. */
  restore(): void;
}

/**
 * Passes every WebSocket the page opens through to the kernel until
 * `drop`, which closes them (1006) and holds back the page's reconnections
 * until `restore`, so a test can change things while the feed is down.
 */
export async function droppableFeed(page: Page): Promise<DroppableFeed> {
  const sockets: WebSocketRoute[] = [];
  let down = false;
  let restore: () => void = () => {};
  const up = new Promise<void>((resolve) => {
    restore = resolve;
  });
  await page.routeWebSocket(
    () => true,
    (socket: WebSocketRoute) => {
      const connect = () => {
        const server = socket.connectToServer();
        server.onMessage((message) => socket.send(message));
        socket.onMessage((message) => server.send(message));
        server.onClose((code, reason) => socket.close({ code, reason }));
      };
      if (down) void up.then(connect);
      else {
        sockets.push(socket);
        connect();
      }
    },
  );
  return {
    async drop() {
      down = true;
      for (const socket of sockets.splice(0)) await socket.close({ code: 1006 });
    },
    restore: () => restore(),
  };
}
