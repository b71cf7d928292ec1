import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { connect } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

const [sqlite] = (await backends()).filter((backend) => backend.name === 'sqlite');

describe('feeds and cables when the kernel shuts down', () => {
  let d: Deployment | undefined;
  afterEach(async () => {
    await d?.close();
    d = undefined;
  });

  it('closes each one with 1001 (going away), so its client knows to reconnect elsewhere', async () => {
    d = await deploy(sqlite!);
    const feed = await connect(`${d.url}${d.ws}/feed?after=latest`, d.tokens.member);
    const cable = await connect(`${d.url}/executor_api/v1/cable`, d.tokens.executor);
    const closing = d.close();
    d = undefined;
    const [feedClosed, cableClosed] = await Promise.all([feed.closed, cable.closed]);
    await closing;
    for (const closed of [feedClosed, cableClosed]) {
      expect(closed).toEqual({ code: 1001, reason: 'the kernel is shutting down' });
    }
  });
});
