import { describe, expect, it } from 'vitest';
import { SingleClient } from './single-client.js';

/** A client whose start and stop take a moment, recording how many are running. */
function fakeClients() {
  const log: string[] = [];
  let running = 0;
  let most = 0;
  let started = 0;
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
  const start = async () => {
    const id = ++started;
    await tick();
    running += 1;
    most = Math.max(most, running);
    log.push(`start ${id}`);
    return {
      async stop() {
        await tick();
        running -= 1;
        log.push(`stop ${id}`);
      },
    };
  };
  return { start, log, running: () => running, most: () => most };
}

describe('the extension keeps one language server running', () => {
  it('settings changed three times in a row: each restart waits for the one before, one server at the end', async () => {
    const clients = fakeClients();
    const single = new SingleClient(clients.start);
    await single.restart();
    await Promise.all([single.restart(), single.restart(), single.restart()]);
    expect(clients.running()).toBe(1);
    expect(clients.most()).toBe(1);
    expect(clients.log).toEqual([
      'start 1',
      'stop 1',
      'start 2',
      'stop 2',
      'start 3',
      'stop 3',
      'start 4',
    ]);
    await single.stop();
    expect(clients.running()).toBe(0);
  });

  it('a start that fails leaves none running, and the next restart starts one', async () => {
    const clients = fakeClients();
    let fail = true;
    const single = new SingleClient(async () => {
      if (fail) throw new Error('the server did not start');
      return clients.start();
    });
    await expect(single.restart()).rejects.toThrow('the server did not start');
    fail = false;
    await single.restart();
    expect(clients.running()).toBe(1);
  });
});
