import { afterEach, describe, expect, it } from 'vitest';
import { claimAndCommit, type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { PROVIDER_DETAIL_MAX, ProviderError } from './types.js';

describe('a provider failure detail', () => {
  it('keeps at most PROVIDER_DETAIL_MAX characters, never half a surrogate pair', () => {
    const long = new ProviderError('provider_error', 'x'.repeat(PROVIDER_DETAIL_MAX * 3));
    expect(long.detail.length).toBeLessThanOrEqual(PROVIDER_DETAIL_MAX);
    expect(long.detail.endsWith('…')).toBe(true);
    const emoji = new ProviderError('provider_error', '😀'.repeat(PROVIDER_DETAIL_MAX));
    expect(emoji.detail.length).toBeLessThanOrEqual(PROVIDER_DETAIL_MAX);
    expect(emoji.detail).not.toContain('\uFFFD');
    expect(new ProviderError('provider_error', 'short').detail).toBe('short');
  });
});

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`a failed round's stored error (${backend.name})`, () => {
    let d: Deployment | undefined;
    afterEach(async () => {
      await d?.close();
      d = undefined;
    });

    it('a scripted expectation that fails after a megabyte result stores a bounded detail', async () => {
      d = await deploy(backend);
      const created = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'x',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'read' }] }, { expect: 'never fed', final: 'done' }],
        },
      });
      expect(created.status).toBe(201);
      const committed = await claimAndCommit(d, created.body.id, 't1', {
        outcome: 'succeeded',
        result: 'y'.repeat(1_000_000),
      });
      expect(committed.status).toBe(200);
      const run = await waitFor(async () => {
        const read = (await d!.member.get(`${d!.ws}/runs/${created.body.id}`)).body;
        return read.state !== 'running' && read;
      });
      expect(run).toMatchObject({ state: 'failed', error: { code: 'script_expectation_failed' } });
      // A few kilobytes at most, where it quoted the whole megabyte it was fed.
      expect(run.error.detail.length).toBeLessThan(4096);
      const events = (await d.member.get(`${d.ws}/runs/${created.body.id}/events`)).body.events;
      const failed = events.find((e: { type: string }) => e.type === 'run.failed');
      expect(failed.data.error.detail.length).toBeLessThan(4096);
    });
  });
}
