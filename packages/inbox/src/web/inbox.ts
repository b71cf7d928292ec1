import {
  type Decision,
  isConflictError,
  isForbiddenError,
  isUnauthorizedError,
  type SocketStatus,
  type Workspace,
} from '@airlock/sdk';
import { h } from './dom.js';
import { type CardActions, decisionCard, decisionKey } from './render.js';

/** Events after which a row may have stopped waiting: its card goes at once. */
const SETTLING = new Set([
  'task.approved',
  'task.denied',
  'task.resolved',
  'task.expired',
  'task.canceled',
]);
/** Events that cannot change what waits. */
const QUIET = new Set(['run.model_read', 'run.round_started', 'task.claimed', 'task.succeeded']);

/** How many "approved by you" lines stay on the list. */
const AFTER_LINES_KEPT = 10;

/** What the inbox shows when its token stops working. */
export interface InboxCallbacks {
  onSignedOut(reason: string): void;
}

/**
 * The live list of decisions waiting in a workspace: read once, then kept
 * current from the workspace feed. A decision made anywhere (this page,
 * another tab, the SDK) disappears from the list as its event arrives.
 */
export class InboxView {
  private readonly cards = new Map<string, { element: HTMLElement; since: number }>();
  private readonly list = h('section', { class: 'list', 'aria-label': 'waiting decisions' });
  private readonly empty = h('p', { class: 'empty' }, 'Nothing is waiting for you.');
  private readonly status = h(
    'span',
    { class: 'status', 'data-status': 'connecting' },
    'connecting',
  );
  private readonly controller = new AbortController();
  private refreshing: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly workspace: Workspace,
    private readonly callbacks: InboxCallbacks,
  ) {}

  /** The view's root: the status line and the list. */
  render(): HTMLElement {
    return h(
      'div',
      { class: 'inbox' },
      h('p', { class: 'toolbar' }, 'Feed: ', this.status),
      this.empty,
      this.list,
    );
  }

  /** Reads what waits and follows the feed until {@link stop}. */
  async start(): Promise<void> {
    await this.refresh();
    void this.follow();
  }

  /** Stops following the feed. */
  stop(): void {
    this.controller.abort();
  }

  private setStatus(status: SocketStatus): void {
    const text = status === 'open' ? 'live' : status;
    this.status.textContent = text;
    this.status.dataset.status = text;
  }

  private async follow(): Promise<void> {
    try {
      // Start at the head (no history replay); every (re)connection refreshes the list, which
      // covers anything that changed before the feed was open.
      const feed = this.workspace.feed({
        after: 'latest',
        signal: this.controller.signal,
        onStatus: (status) => {
          this.setStatus(status);
          if (status === 'open') this.scheduleRefresh();
        },
      });
      for await (const event of feed) {
        if (QUIET.has(event.type)) continue;
        const key = `${event.run_id}/${event.task_key}`;
        // An event older than the card's waiting spell (a replayed approval of a row that
        // parked again since) must not take the card away.
        const card = this.cards.get(key);
        if (SETTLING.has(event.type) && card && event.created_at >= card.since) this.remove(key);
        this.scheduleRefresh();
      }
    } catch (error) {
      this.fail(error);
    }
  }

  private scheduleRefresh(): void {
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        await this.refresh().catch((error: unknown) => this.fail(error));
      } while (this.again);
      this.refreshing = null;
    })();
  }

  private async refresh(): Promise<void> {
    const decisions = await this.workspace.decisions.list({ limit: 500 });
    const keys = new Set(decisions.map(decisionKey));
    for (const key of [...this.cards.keys()]) if (!keys.has(key)) this.remove(key);
    for (const decision of decisions) {
      const key = decisionKey(decision);
      if (this.cards.has(key)) continue;
      const element = decisionCard(decision, this.actions);
      this.cards.set(key, { element, since: decision.task.updated_at });
      this.list.append(element);
    }
    this.empty.hidden = this.cards.size > 0;
  }

  private remove(key: string): void {
    this.cards.get(key)?.element.remove();
    this.cards.delete(key);
    this.empty.hidden = this.cards.size > 0;
  }

  private fail(error: unknown): void {
    if (isUnauthorizedError(error) || isForbiddenError(error)) {
      this.stop();
      this.callbacks.onSignedOut(error.detail);
      return;
    }
    this.status.textContent = `error: ${(error as Error).message}`;
  }

  /**
   * After a verb: the card goes, leaving a short line that says what this
   * person did and links to the run's story; a decision made elsewhere first
   * takes the card without a line.
   */
  private settle(decision: Decision, work: Promise<unknown>, done: string): Promise<void> {
    return work.then(
      () => {
        const key = decisionKey(decision);
        const card = this.cards.get(key)?.element;
        const line = h(
          'p',
          { class: 'after', 'data-after': key },
          `${done} `,
          h('a', { href: `#/runs/${encodeURIComponent(decision.run_id)}` }, 'See the run'),
          ` (${decision.run_id}, task ${decision.task_key}).`,
        );
        if (card) card.replaceWith(line);
        else this.list.prepend(line);
        this.cards.delete(key);
        this.empty.hidden = this.cards.size > 0;
        const lines = this.list.querySelectorAll('.after');
        for (let i = AFTER_LINES_KEPT; i < lines.length; i += 1) lines[i]?.remove();
      },
      (error: unknown) => {
        if (isConflictError(error)) {
          this.remove(decisionKey(decision));
          return;
        }
        throw error;
      },
    );
  }

  private readonly actions: CardActions = {
    approve: (decision, remember) =>
      this.settle(
        decision,
        decision.approve(remember ? { remember } : {}),
        remember
          ? `Approved by you and remembered (${remember.scope}); running.`
          : 'Approved by you; running.',
      ),
    deny: (decision, reason) =>
      this.settle(
        decision,
        decision.deny(reason.trim() ? { reason: reason.trim() } : {}),
        'Denied by you; the model reads why.',
      ),
    answer: (decision, content, outcome) =>
      this.settle(
        decision,
        decision.answer({ content, ...(outcome ? { outcome } : {}) }),
        outcome === 'failed' ? 'Declined by you.' : 'Answered by you.',
      ),
  };
}
