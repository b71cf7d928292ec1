import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import { REPO_ROOT } from './samples.js';

/** The list item of docs/observability.md that describes `--metrics-listen`. */
function listenerItem(): string {
  const page = readFileSync(join(REPO_ROOT, 'docs', 'observability.md'), 'utf8');
  const item = page.split(/\n- /).find((text) => text.startsWith('`--metrics-listen host:port`'));
  return (item ?? '').replace(/\s+/g, ' ');
}

/*
 * What the page says the unauthenticated metrics address answers, against
 * a kernel serving one: a scrape, another path, another method.
 */
describe('docs/observability.md: the --metrics-listen address', () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startTestKernel({ metricsListen: { host: '127.0.0.1', port: 0 } });
  });
  afterAll(async () => {
    await kernel?.close();
  });

  it('answers as the page says', async () => {
    const item = listenerItem();
    expect(item).toContain('**without credentials**');
    const metrics = kernel.airlock.metricsListener?.url ?? '';
    expect(metrics).toMatch(/\/metrics$/);
    const scrape = await fetch(metrics);
    expect(scrape.status).toBe(200);
    await scrape.text();
    for (const request of [
      { url: metrics.replace(/\/metrics$/, '/healthz'), method: 'GET' },
      { url: metrics, method: 'POST' },
    ]) {
      const response = await fetch(request.url, { method: request.method });
      const body = (await response.json()) as { error: { code: string } };
      const answer = `${response.status} ${body.error.code}`;
      expect(item, `${request.method} ${request.url} answers ${answer}`).toContain(`\`${answer}\``);
    }
  });
});
