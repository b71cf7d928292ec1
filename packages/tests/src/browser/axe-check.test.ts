import { describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { workerBrowser } from './inbox-fixture.js';

// The accessibility check every inbox test ends with must be able to fail: a page with an image
// without alternative text and a link without a name is two violations, on the first check of the
// page and on a second one (which reuses the axe the first loaded).
describe.skipIf(browserSkipReason)('the accessibility check (axe)', () => {
  it('reports violations, each time it is asked', async () => {
    const context = await (await workerBrowser()).newContext();
    try {
      const page = await context.newPage();
      await page.setContent(
        '<html lang="en"><head><title>check</title></head><body><main><img src="x.png"><a href="#"></a></main></body></html>',
      );
      const first = await axeViolations(page);
      expect(first.map((violation) => violation.id).sort()).toEqual(['image-alt', 'link-name']);
      expect(await axeViolations(page)).toEqual(first);
    } finally {
      await context.close();
    }
  });
});
