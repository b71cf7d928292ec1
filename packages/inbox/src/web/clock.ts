import { h } from './dom.js';
import { ago, until } from './format.js';

/** How often the relative times on the page are said again. */
const TICK_MS = 10_000;

/** The whole local date and time of an epoch-ms time, in the person's own zone. */
function localWhen(at: number): string {
  return new Date(at).toLocaleString([], { dateStyle: 'medium', timeStyle: 'medium' });
}

/**
 * A relative time ("3 min ago", `ago`) or one still to come ("in 2 h",
 * `until`), as a `<time>` the page's clock keeps true (see {@link keepTimesTrue}):
 * its tooltip and `datetime` hold the local date and time it stands for.
 */
export function relativeTime(at: number, kind: 'ago' | 'until'): HTMLTimeElement {
  return h(
    'time',
    {
      datetime: new Date(at).toISOString(),
      title: localWhen(at),
      [`data-${kind}`]: at,
    },
    kind === 'ago' ? ago(at) : until(at),
  );
}

/** Says every relative time under `root` again for `now`; a text that did not change is left alone. */
export function retellTimes(root: ParentNode, now = Date.now()): void {
  for (const time of root.querySelectorAll<HTMLTimeElement>('time[data-ago], time[data-until]')) {
    const since = time.dataset.ago;
    const text =
      since !== undefined ? ago(Number(since), now) : until(Number(time.dataset.until), now);
    if (time.textContent !== text) time.textContent = text;
  }
}

/**
 * Keeps the relative times under `root` true while the page is open: a row
 * drawn "just now" says "20 min ago" twenty minutes later. Not a live region:
 * a screen reader hears the new words when it reaches them, not every tick.
 */
export function keepTimesTrue(root: ParentNode): void {
  setInterval(() => retellTimes(root), TICK_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') retellTimes(root);
  });
}
