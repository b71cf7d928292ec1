import { visibleText } from '@airlock/sdk';
import { h } from './dom.js';
import type { StoryEvent } from './story.js';

/**
 * What a model wrote beside a round's tool calls (its plan), as a run's
 * story shows it above the round's first row: plain text (hidden characters
 * as marks, never HTML), and a long plan folded behind its first line.
 */

/** A round's plan, from its `run.round_started` event. */
export interface RoundPlan {
  round: number;
  text: string;
}

/** A plan longer than this many characters, or lines, is folded. */
export const PLAN_FOLD_CHARACTERS = 600;
export const PLAN_FOLD_LINES = 8;
/** How much of a folded plan its line shows. */
const PREVIEW_CHARACTERS = 160;

/** The plan a `run.round_started` event carries, or null (another event, or a round said without text). */
export function roundPlanOf(event: StoryEvent): RoundPlan | null {
  if (event.type !== 'run.round_started') return null;
  const data = event.data as { round?: unknown; text?: unknown } | null;
  if (typeof data?.round !== 'number' || typeof data.text !== 'string') return null;
  const text = data.text.trim();
  return text === '' ? null : { round: data.round, text };
}

/** Whether a plan is folded: too long to stand above its round's calls whole. */
export function isFolded(text: string): boolean {
  return text.length > PLAN_FOLD_CHARACTERS || text.split('\n').length > PLAN_FOLD_LINES;
}

/** A folded plan's line: its start on one line, cut with an ellipsis. */
export function planPreview(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > PREVIEW_CHARACTERS ? `${line.slice(0, PREVIEW_CHARACTERS)}…` : line;
}

const count = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The plan's element: its text whole, or folded behind its first line when long. */
export function planView(plan: RoundPlan): HTMLElement {
  const shown = visibleText(plan.text);
  const title = `The model's plan for round ${plan.round}`;
  if (!isFolded(shown)) {
    return h(
      'section',
      { class: 'plan', 'data-round': plan.round, 'aria-label': title },
      h('p', { class: 'plan-title' }, `${title}:`),
      h('p', { class: 'plan-text' }, shown),
    );
  }
  // Its box scrolls past 24 lines: in the Tab order, so a keyboard scrolls it too.
  const body = h('p', { class: 'plan-text', tabindex: 0, 'aria-label': `${title}, whole` }, shown);
  const size = `${count(shown.length, 'character', 'characters')} on ${count(shown.split('\n').length, 'line', 'lines')}`;
  return h(
    'details',
    { class: 'plan folded', 'data-round': plan.round },
    h(
      'summary',
      {},
      h('span', { class: 'plan-title' }, `${title} (${size}, folded):`),
      ' ',
      h('span', { class: 'plan-preview' }, visibleText(planPreview(plan.text), { oneLine: true })),
    ),
    body,
  );
}
