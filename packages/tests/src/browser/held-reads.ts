import type { Page } from 'playwright-core';

/** A page's reads of single rows (`tasks.get`), answered by the kernel at once but held back. */
export interface HeldReads {
  /** One function per read that arrived, in order: calling it lets that answer reach the page. */
  readonly held: (() => void)[];
  /** How many held answers reached the page. */
  delivered(): number;
  /**
   * Lets every read through, now and later, and removes the route once each handler is done:
   * one unrouted mid-way has its request continued by Playwright, and its own fulfil then
   * throws ("Route is already handled").
   */
  finish(): Promise<void>;
}

/** Holds each `tasks.get` answer of `page` until the test lets it go (see {@link HeldReads}). */
export async function holdRowReads(page: Page): Promise<HeldReads> {
  const held: (() => void)[] = [];
  let holding = true;
  let delivered = 0;
  await page.route('**/trpc/tasks.get**', async (route) => {
    const response = await route.fetch();
    if (holding) await new Promise<void>((go) => held.push(go));
    await route.fulfill({ response });
    delivered += 1;
  });
  return {
    held,
    delivered: () => delivered,
    async finish() {
      holding = false;
      for (const go of held) go();
      await page.unrouteAll({ behavior: 'wait' });
    },
  };
}
