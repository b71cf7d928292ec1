import { type TaskView, visibleText } from '@airlock/sdk';
import { unreachableView } from './approvals-view.js';
import { isTextField } from './card-work.js';
import { h, isolated } from './dom.js';
import { callLine } from './format.js';
import { type RowDecide, rowActions } from './row-actions.js';
import { modelReadText, type StoryDecision, stateWords } from './story.js';

/**
 * A run story's rows as drawn: one row's element (its call, state, decisions,
 * what the model read, and Approve/Deny while it waits), and what the story
 * remembers of a drawing to leave an unchanged row alone.
 */

function time(at: number): string {
  return new Date(at).toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/** An outcome as the story's line says it: one approval of several is still "approved". */
const OUTCOME_WORDS: Record<string, string> = { approval_added: 'approved' };

/** ` (Ana Lima, Bo Chen)`, each name apart; nothing for none. */
function namesAfter(names: readonly string[]): (HTMLElement | string)[] {
  if (names.length === 0) return [];
  const parts = names.flatMap((name, index) => [
    index === 0 ? ' (' : ', ',
    isolated(visibleText(name, { oneLine: true })),
  ]);
  return [...parts, ')'];
}

function decisionItem(decision: StoryDecision): HTMLElement {
  return h(
    'li',
    { class: `decision decider-${decision.decider}`, 'data-outcome': decision.outcome },
    h('time', { datetime: new Date(decision.at).toISOString() }, time(decision.at)),
    ` ${OUTCOME_WORDS[decision.outcome] ?? decision.outcome} by `,
    h('strong', {}, isolated(visibleText(decision.by, { oneLine: true }))),
    // A deny reason, an error or an edit's words: hidden characters show as marks.
    decision.detail ? ': ' : '',
    decision.detail ? isolated(visibleText(decision.detail)) : '',
    ...namesAfter(decision.names ?? []),
  );
}

/** The list of a row's decisions; hidden while there is none. */
export function decisionList(taskKey: string, decisions: readonly StoryDecision[]): HTMLElement {
  return h(
    'ul',
    { class: 'decisions', 'aria-label': `decisions on ${taskKey}`, hidden: decisions.length === 0 },
    ...decisions.map(decisionItem),
  );
}

/** A drawn row: what its call showed, its element, and how many decisions it lists. */
export interface BuiltRow {
  signature: string;
  element: HTMLElement;
  decisions: number;
  /** The row as the person reads it: what its buttons answer. */
  task: TaskView;
  /** The row as it is now, when it changed while it waits: said on the row, not drawn. */
  current: TaskView | null;
}

/** What a row's drawing shows of its call: a row is drawn again only when this changes. */
export const signatureOf = (task: TaskView) => `${task.version}|${task.updated_at}|${task.state}`;

/** Whether a verb was sent from a row's buttons: they stay disabled until it is drawn again or refused. */
function sentFrom(element: HTMLElement): boolean {
  const approve = element.querySelector('[data-action="approve"]') as HTMLButtonElement | null;
  return approve?.disabled === true;
}

/**
 * Whether a parked row stays as the person read it though the kernel has it
 * otherwise: it still waits, changed (an edit), and no verb was sent from it.
 */
export function keepsRead(known: BuiltRow, now: TaskView): boolean {
  return (
    known.task.state === 'needs_approval' &&
    now.state === 'needs_approval' &&
    !sentFrom(known.element)
  );
}

/** The text field of a row the person is typing into (not one a verb in flight disabled). */
export function typingIn(element: HTMLElement): HTMLInputElement | HTMLTextAreaElement | null {
  const focused = document.activeElement;
  return isTextField(focused) && !focused.disabled && element.contains(focused) ? focused : null;
}

/**
 * Says on a drawn row, in place, whether too few members can approve its
 * call as the kernel has it now: a revoke reaches the story with the next
 * approval's re-read, and a row kept as the person read it (see
 * {@link keepsRead}) would otherwise keep its old words.
 */
export function sayReachability(element: HTMLElement, now: TaskView): void {
  const shown = element.querySelector(':scope > .unreachable');
  const wanted = now.state === 'needs_approval' ? unreachableView(now) : null;
  if (shown && wanted) {
    if (shown.textContent !== wanted.textContent) shown.replaceWith(wanted);
  } else if (shown) shown.remove();
  else if (wanted) element.insertBefore(wanted, element.querySelector(':scope > .row-actions'));
}

/** One row of a run's story: its call, state, decisions, what the model read, and its verbs while it waits. */
export function storyRow(
  task: TaskView,
  story: { decisions: readonly StoryDecision[]; actions: RowDecide },
): HTMLElement {
  const read = modelReadText(task);
  return h(
    'li',
    { class: 'row', 'data-task': task.key, 'data-state': task.state },
    h('h3', {}, `${task.key} · `, h('code', {}, callLine(task.tool_name, task.tool_input))),
    h(
      'p',
      { class: 'row-meta' },
      `${task.origin} ${task.kind} row, round ${task.round} · `,
      h('span', { class: 'row-state' }, stateWords(task.state)),
    ),
    decisionList(task.key, story.decisions),
    read === null
      ? null
      : h('p', { class: 'model-read' }, 'The model read: ', h('code', {}, visibleText(read))),
    task.state === 'needs_approval' ? unreachableView(task) : null,
    task.state === 'needs_approval' ? rowActions(task, story.actions) : null,
  );
}
