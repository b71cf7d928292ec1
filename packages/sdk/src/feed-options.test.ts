import { describe, expect, it } from 'vitest';
import { createClient } from './client.js';
import { ValidationError } from './errors.js';
import type { FeedOptions } from './feed.js';
import type { WebSocketLike } from './internal/socket.js';

/**
 * The kernel refuses a feed's bad `after` at the socket's handshake, which a
 * WebSocket cannot read: the SDK refuses it first, or the feed would
 * reconnect for ever. A socket class that counts its openings shows that
 * nothing was opened.
 */
describe('feed options the SDK cannot use', () => {
  let opened = 0;
  class CountingSocket implements WebSocketLike {
    readyState = 0;
    onopen = null;
    onmessage = null;
    onclose = null;
    onerror = null;
    constructor(_url: string) {
      opened += 1;
    }
    send(): void {}
    close(): void {}
  }
  const workspace = createClient({
    url: 'http://127.0.0.1:9',
    token: 'alk_member_test',
    WebSocket: CountingSocket,
  }).workspace('ws_1');

  /** What opening a feed with these options throws (null when it opens one). */
  const refusal = (options: FeedOptions, open = workspace.feed.bind(workspace)) => {
    try {
      open(options).close();
      return null;
    } catch (error) {
      return error;
    }
  };

  it.each([
    [{ after: 1.5 }, ['/after']],
    [{ after: -1 }, ['/after']],
    [{ after: Number.NaN }, ['/after']],
    [{ after: '3' as never }, ['/after']],
    [{ highWaterMark: Number.NaN, highWaterBytes: 0 }, ['/highWaterMark', '/highWaterBytes']],
    [{ after: 2 ** 53, highWaterMark: 0.5 }, ['/after', '/highWaterMark']],
  ])('%o is a ValidationError naming each option, and no socket opens', (options, pointers) => {
    opened = 0;
    const error = refusal(options);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'invalid_input', status: null });
    expect((error as ValidationError).problems.map((problem) => problem.pointer)).toEqual(pointers);
    expect(opened).toBe(0);
  });

  it("a run's feed refuses them too", () => {
    const run = workspace.runs.run('run_1');
    expect(refusal({ after: -2 }, run.feed.bind(run))).toBeInstanceOf(ValidationError);
  });

  it.each([{}, { after: 0 }, { after: 'latest' as const }, { after: 7, highWaterMark: 1 }])(
    '%o opens a feed',
    (options) => {
      expect(refusal(options)).toBeNull();
    },
  );
});
