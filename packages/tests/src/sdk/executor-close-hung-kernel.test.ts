import type { WebSocketConstructor } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { useExecutorKernel } from '../support/executor-kernel.js';
import { eventually } from '../support/kernel.js';
import { startStallingProxy } from '../support/stalling-proxy.js';

/** ws's own class, keeping every socket it makes. */
function recordingWebSocket(): { WebSocket: WebSocketConstructor; made: WebSocket[] } {
  const made: WebSocket[] = [];
  class Recorded extends WebSocket {
    constructor(url: string) {
      super(url);
      made.push(this);
    }
  }
  return { WebSocket: Recorded as unknown as WebSocketConstructor, made };
}

/*
 * close() against a kernel that hangs: the cable's close frame is never answered, and ws waits
 * 30 s for the answer with a timer and the socket both holding the event loop, so a process
 * that closed its executor to exit lived on for half a minute. The cable's socket is now let
 * go within a couple of seconds; "within" is bounded at 15 s, far from both.
 */
describe('an executor closed while its kernel hangs', () => {
  const fixture = useExecutorKernel();

  it('lets its cable socket go well before ws gives up on the answer (30 s)', async () => {
    const proxy = await startStallingProxy(fixture.kernel.url);
    try {
      const recording = recordingWebSocket();
      const executor = fixture.start(
        { bash: () => 'ran' },
        { url: proxy.url, WebSocket: recording.WebSocket },
      );
      await executor.ready;
      expect(recording.made.at(-1)?.readyState).toBe(WebSocket.OPEN);
      proxy.stall();
      // abort: a claim sent at ready may be on the wire, and a plain close waits for its answer.
      await executor.close({ abort: true });
      await eventually(
        () => recording.made.every((socket) => socket.readyState === WebSocket.CLOSED),
        {
          timeoutMs: 15_000,
          what: 'the cable socket to close',
        },
      );
    } finally {
      await proxy.close();
    }
  });
});
