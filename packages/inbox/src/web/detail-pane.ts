import type { Decision, TaskView } from '@airlock/sdk';
import { ACTED } from './acting.js';
import { type CardVerb, leftAfterUnanswered } from './card-verbs.js';
import {
  isTextField,
  refreshApprovals,
  restoreWork,
  sayChanged,
  sentFrom,
  workOf,
} from './card-work.js';
import { h, isolated } from './dom.js';
import { type CardActions, decisionCard, decisionKey } from './render.js';
import { UnsentNote } from './unsent-note.js';
import { type Words, wordsNodes, wordsThen } from './words.js';

/** What a key asks of the open decision. */
export type DetailKey = 'approve' | 'deny' | 'edit';

/**
 * How long a card the pane moved on to after a verb takes no `a`: the second press of a double
 * press would otherwise approve a call drawn a moment before, never read.
 */
const KEY_PAUSE_MS = 600;

/**
 * The pane beside the list where the open decision reads in full, with its
 * buttons. What a person reads or types in it is never swapped under them: a
 * call that changed while its card is open is said on the card (its buttons
 * stay bound to the version they read), one more approval is counted in
 * place, and a card that goes away while they type leaves what they typed,
 * and the cursor, in a note of its own.
 */
export class DetailPane {
  private readonly body = h(
    'div',
    { class: 'detail-body' },
    h('p', { class: 'detail-empty' }, 'Pick a decision to read it here (j/k, ? for keys).'),
  );
  private readonly unsent = new UnsentNote(() => this.element.focus());
  /** The pane's element. */
  readonly element = h(
    'aside',
    { class: 'detail', 'aria-label': 'open decision', tabindex: -1 },
    this.unsent.element,
    this.body,
  );
  /** The open card and the decision it was drawn from: what its buttons answer. */
  private open: { decision: Decision; card: HTMLElement } | null = null;
  /** The open call as it is now, when it changed while the person worked in its card. */
  private current: Decision | null = null;
  /** A read of the open call that came while a verb from its card was on its way. */
  private held: Decision | null = null;
  /** Verbs sent from a card whose answer never came, by call: the kernel may have applied them. */
  private readonly unanswered = new Map<string, { decision: Decision; verb: CardVerb }>();
  /** The next card drawn is one the pane moved on to after a verb (see {@link KEY_PAUSE_MS}). */
  private pauseNext = false;
  /** The timer of the open card's pause, while it takes no `a`. */
  private keysPaused: ReturnType<typeof setTimeout> | null = null;

  /** `readRow` reads a call's row as the kernel has it now (null when it cannot). */
  constructor(
    private readonly actions: CardActions,
    private readonly readRow: (decision: Decision) => Promise<TaskView | null>,
  ) {}

  /** A verb sent from `decision`'s card got no answer, nor could its row be read after it. */
  noteUnanswered(decision: Decision, verb: CardVerb): void {
    this.unanswered.set(decisionKey(decision), { decision, verb });
  }

  /** The verb sent from `decision`'s card whose answer never came, if any. */
  unansweredVerb(decision: Decision): CardVerb | null {
    return this.unanswered.get(decisionKey(decision))?.verb ?? null;
  }

  /**
   * Shows a decision's card. A newer read of the open call is drawn only once
   * a verb was sent from its card; until then another version is said on the
   * card (drawn in place, its `a` would approve what the person never read),
   * and one more approval of the same version is counted in place.
   */
  show(decision: Decision): void {
    const open = this.open;
    const same = open !== null && decisionKey(open.decision) === decisionKey(decision);
    if (same && this.busy) {
      // A verb from this card is on its way: the card stays (its answer or refusal lands
      // there, and its buttons stay disabled); the newer read is shown once the answer is in.
      this.held = decision;
      if (open.decision.task.version === decision.task.version)
        refreshApprovals(open.card, decision);
      return;
    }
    if (open && same && !sentFrom(open.card)) {
      if (open.decision.task.version !== decision.task.version) {
        this.current = decision;
        sayChanged(open.card, open.decision, decision, () => this.showCurrent());
      } else {
        // One more approval, say: its buttons are still bound to the version there is.
        refreshApprovals(open.card, decision);
      }
      return;
    }
    this.draw(decision);
  }

  /** True while a verb sent from the open card waits for the kernel's answer. */
  get busy(): boolean {
    return this.open?.card.getAttribute('aria-busy') === 'true';
  }

  /**
   * Says that the open call (`key`) stopped waiting (decided elsewhere, or
   * expired) and opens nothing in its place: a key meant for it must not land
   * on a call the person has not seen. When a verb sent from its card never
   * got an answer, the kernel may have applied it: its row is read, and the
   * pane says what became of the call.
   */
  left(summary: string, key: string | null): void {
    this.open = null;
    const sent = key === null ? undefined : this.unanswered.get(key);
    if (key !== null) this.unanswered.delete(key);
    // The summary and a member's name set apart: right-to-left letters keep to their place.
    const said = (words: Words) => [
      'The call you had open stopped waiting: ',
      isolated(summary),
      '. ',
      ...wordsNodes(words),
    ];
    const line = h(
      'p',
      { class: 'detail-empty detail-left', role: 'status' },
      ...said(
        sent
          ? 'No answer came from the kernel to what you sent; reading what became of it…'
          : 'It was decided elsewhere or it expired, and nothing was sent from here. Press j for the next call.',
      ),
    );
    this.replace(line);
    if (!sent) return;
    const { decision, verb } = sent;
    void this.readRow(decision).then((row) => {
      if (!line.isConnected) return;
      line.replaceChildren(
        ...said(
          wordsThen(
            leftAfterUnanswered(verb, decision.isAsk(), row),
            ' Press j for the next call.',
          ),
        ),
      );
    });
  }

  /** Shows that the open decision is being read. */
  reading(): void {
    this.open = null;
    this.replace(h('p', { class: 'detail-empty' }, 'Reading this call…'));
  }

  /** The next card drawn is the one the pane moves on to after a verb: it takes no `a` at once. */
  movingOn(): void {
    this.pauseNext = true;
  }

  /** Shows that nothing is open. */
  clear(): void {
    this.pauseNext = false;
    this.open = null;
    this.replace(h('p', { class: 'detail-empty' }, 'Nothing is open.'));
  }

  /**
   * Does what a key asks of the open card: `a` approves, `d` puts the cursor
   * in the deny reason, `e` opens the input editor (never closes it) with the
   * cursor in it.
   */
  key(action: DetailKey): void {
    const card = this.body.querySelector('article');
    if (!card) return;
    if (action === 'deny') {
      (card.querySelector('input[name="reason"]') as HTMLInputElement | null)?.focus();
      return;
    }
    const button = card.querySelector(`[data-action="${action}"]`) as HTMLButtonElement | null;
    if (action === 'approve' && this.keysPaused !== null) {
      const message = card.querySelector(':scope > .message');
      if (message && button && !button.disabled) {
        message.textContent =
          'Not approved: this call opened just now. Press a again to approve it.';
      }
      return;
    }
    if (action === 'edit' && button?.getAttribute('aria-expanded') === 'true') {
      (card.querySelector('textarea[name="tool-input"]') as HTMLElement | null)?.focus();
    } else button?.click();
  }

  private draw(decision: Decision): HTMLElement {
    const card = decisionCard(decision, this.actions);
    if (this.pauseNext) this.pauseKeys();
    this.open = { decision, card };
    this.current = null;
    this.held = null;
    card.addEventListener(ACTED, () => {
      const held = this.held;
      this.held = null;
      if (held && this.open?.card === card) this.show(held);
    });
    this.replace(card);
    return card;
  }

  /** The card about to be drawn takes no `a` for {@link KEY_PAUSE_MS}; the pane says so meanwhile. */
  private pauseKeys(): void {
    this.pauseNext = false;
    if (this.keysPaused !== null) clearTimeout(this.keysPaused);
    this.element.setAttribute('data-keys-paused', '');
    this.keysPaused = setTimeout(() => {
      this.keysPaused = null;
      this.element.removeAttribute('data-keys-paused');
    }, KEY_PAUSE_MS);
  }

  /** Draws the open call as it is now, with what the person typed in its card. */
  private showCurrent(): void {
    if (!this.open || !this.current) return;
    const work = workOf(this.open.card);
    restoreWork(this.draw(this.current), work);
  }

  /**
   * Puts `content` in the pane. A text field the person was typing into
   * (not one a verb in flight disabled) goes with the card, so what they
   * typed and the cursor move to the unsent note; any other focus the card
   * held (its button, the card itself while a verb was in flight) stays in
   * the pane, so the keyboard and a screen reader go on from the next card,
   * not from the top of the page.
   */
  private replace(content: HTMLElement): void {
    const focused = document.activeElement;
    const inPane = focused !== null && this.body.contains(focused);
    const typing = inPane && isTextField(focused) && !focused.disabled;
    this.body.replaceChildren(content);
    if (typing) {
      const call = focused.closest('article')?.getAttribute('aria-label') ?? 'the call';
      this.unsent.keep(call, focused.value);
    } else if (inPane) this.element.focus({ preventScroll: true });
  }
}
