import type { Page, WebSocketRoute } from 'playwright-core';

/** A page's feed sockets held back from the kernel until {@link HeldFeed.release}. */
export interface HeldFeed {
  /** Connects every held socket to the kernel, sending what the page sent meanwhile, in order. */
  release(): void;
}

/**
 * Holds back every WebSocket the page opens: the page sees it open, but what
 * it sends waits and the kernel sees nothing until `release`, so a test can
 * act on what the page drew before its feed is live.
 */
export async function holdFeed(page: Page): Promise<HeldFeed> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.routeWebSocket(
    () => true,
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
