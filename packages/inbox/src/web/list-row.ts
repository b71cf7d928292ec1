import { type Decision, shortened, visibleText } from '@airlock/sdk';
import { approvalsCount, cannotBeApproved } from './approvals-view.js';
import { relativeTime } from './clock.js';
import { h } from './dom.js';
import { callLine } from './format.js';

/** What a row of the list does when a person picks or ticks it. */
export interface RowEvents {
  open(key: string): void;
  tick(key: string, ticked: boolean): void;
}

/**
 * What a row of the list shows: from a decision read from the kernel, or
 * from the feed's own events (a first park, before anyone reads it).
 */
export interface RowFacts {
  run_id: string;
  task_key: string;
  round: number;
  created_at: number;
  kind: 'approval' | 'question';
  summary: string;
  /** "1 of 2 approvals", or null. */
  progress: string | null;
  /**
   * True when too few members may approve the call to meet its quorum (read
   * from the kernel, or from its park's `approvals_reachable`).
   */
  unreachable?: boolean;
}

/**
 * The one-line summary of a waiting decision: a question's prompt (its line
 * breaks and hidden characters as marks, its end kept) or the call.
 */
export function summaryOf(decision: Decision): string {
  return decision.isAsk()
    ? shortened(`ask: ${visibleText(decision.prompt || 'a question', { oneLine: true })}`, 160)
    : callLine(decision.tool_name, decision.tool_input, 160);
}

/** What a row shows of a decision. */
export function factsOf(decision: Decision): RowFacts {
  return {
    run_id: decision.run_id,
    task_key: decision.task_key,
    round: decision.task.round,
    created_at: decision.task.created_at,
    kind: decision.kind,
    summary: summaryOf(decision),
    progress: decision.isApproval() ? approvalsCount(decision) : null,
    unreachable: cannotBeApproved(decision),
  };
}

/** How many characters of a summary's end its row always shows. */
const KEPT_END = 20;

/** Letters written right to left: Hebrew, Arabic, Syriac, Thaana, N'Ko and the like. */
const RIGHT_TO_LEFT =
  /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
const LETTER = /\p{L}/u;
const DIGIT = /\p{N}/u;

/**
 * True when cutting `characters` at `at` into two boxes, each laid out alone, draws them as
 * one line would: no right-to-left stretch (its spaces and digits with it) runs across the cut.
 */
function cutKeepsOrder(characters: string[], at: number): boolean {
  if (at === 0 || at === characters.length) return true;
  let before = '';
  for (let i = at - 1; i >= 0 && before === ''; i -= 1) {
    const character = characters[i] ?? '';
    if (RIGHT_TO_LEFT.test(character)) before = 'rtl';
    else if (LETTER.test(character)) before = 'ltr';
  }
  if (before !== 'rtl') return true;
  // After right-to-left letters: the end must go on with a left-to-right letter, no digit first.
  for (let i = at; i < characters.length; i += 1) {
    const character = characters[i] ?? '';
    if (RIGHT_TO_LEFT.test(character) || DIGIT.test(character)) return false;
    if (LETTER.test(character)) return true;
  }
  return true;
}

/**
 * Where a summary's kept end begins: {@link KEPT_END} characters from its end, moved (the end
 * longer, up to twice as long, else shorter) so that no right-to-left words run across it.
 */
export function keptEndStart(summary: string): number {
  const characters = [...summary];
  const wanted = Math.max(0, characters.length - KEPT_END);
  if (wanted === 0) return 0;
  // Never all of a longer summary in the end: the end is not cut, so it would overflow the row.
  for (let at = wanted; at >= Math.max(1, wanted - KEPT_END); at -= 1) {
    if (cutKeepsOrder(characters, at)) return at;
  }
  let at = wanted + 1;
  while (!cutKeepsOrder(characters, at)) at += 1;
  return at;
}

/**
 * A row's summary as two parts: its start, cut with an ellipsis where the
 * row is too narrow, and its last characters, always drawn (the end of a
 * command is where `| sh` hides, and a row is what a bulk verb is ticked by).
 * Each part is laid out alone, so the cut falls outside right-to-left words.
 */
function summaryParts(summary: string): HTMLElement[] {
  const characters = [...summary];
  const at = keptEndStart(summary);
  const head = characters.slice(0, at).join('');
  const end = characters.slice(at).join('');
  return [h('span', { class: 'summary-start' }, head), h('span', { class: 'summary-end' }, end)];
}

/**
 * One dense row of the waiting list (about 50 px): a tick box for bulk
 * actions, a button that opens the decision in the detail pane with its
 * summary (its end always in view), a line with its run, task and age, and how far it is toward
 * its quorum ("1 of 2 approvals") when the approval policy asks several,
 * after "too few approvers" when its quorum can no longer be met.
 */
export function listRow(facts: RowFacts, key: string, events: RowEvents): HTMLLIElement {
  const tick = h('input', {
    type: 'checkbox',
    class: 'tick',
    'aria-label': `Select ${facts.summary} (run ${facts.run_id}, task ${facts.task_key})`,
  });
  tick.addEventListener('change', () => events.tick(key, tick.checked));
  const progress = facts.progress;
  return h(
    'li',
    {
      class: 'row',
      'data-decision': key,
      'data-kind': facts.kind,
    },
    tick,
    h(
      'button',
      { type: 'button', class: 'open', onclick: () => events.open(key) },
      h(
        'span',
        { class: `badge ${facts.kind}` },
        facts.kind === 'question' ? 'question' : 'approval',
      ),
      h('span', { class: 'summary' }, ...summaryParts(facts.summary)),
      h(
        'span',
        { class: 'line-meta' },
        // In words before the rest of the line, so it is neither colour alone nor cut off.
        facts.unreachable ? h('span', { class: 'row-unreachable' }, 'too few approvers') : null,
        facts.unreachable ? ' · ' : '',
        progress === null ? null : h('span', { class: 'row-approvals' }, progress),
        `${progress === null ? '' : ' · '}${facts.run_id} · ${facts.task_key} · `,
        relativeTime(facts.created_at, 'ago'),
      ),
    ),
  );
}
