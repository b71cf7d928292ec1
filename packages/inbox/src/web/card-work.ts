import type { Decision } from '@airlock/sdk';
import { approvalsView, unreachableView } from './approvals-view.js';
import { h } from './dom.js';
import { sameJson } from './input-changes.js';

/** A text field a person types into: a one-line input or a textarea. */
export function isTextField(
  element: Element | null,
): element is HTMLInputElement | HTMLTextAreaElement {
  return (
    element instanceof HTMLTextAreaElement ||
    (element instanceof HTMLInputElement && element.type === 'text')
  );
}

/** What a person did in a card and would lose if it were drawn again: what they typed. */
export interface CardWork {
  /** The deny reason or the free-text answer. */
  typed: string;
  /** The input editor's text, when it is open. */
  edit: string | null;
}

const typedField = (card: HTMLElement) =>
  card.querySelector('input[name="reason"], input[name="answer"]') as HTMLInputElement | null;
const editorText = (card: HTMLElement) =>
  card.querySelector('textarea[name="tool-input"]') as HTMLTextAreaElement | null;

/** What the person typed in a card. */
export function workOf(card: HTMLElement): CardWork {
  const editor = card.querySelector('section.edit') as HTMLElement | null;
  return {
    typed: typedField(card)?.value ?? '',
    edit: editor && !editor.hidden ? (editorText(card)?.value ?? null) : null,
  };
}

/** Whether a verb was sent from a card: its buttons are disabled until it is drawn again or refused. */
export function sentFrom(card: HTMLElement): boolean {
  const verb = card.querySelector('.actions button') as HTMLButtonElement | null;
  return verb?.disabled === true;
}

/**
 * Whether a person works in a card: typing in it, or text or an open editor
 * left in it; not once they sent a verb from it (its buttons are disabled).
 */
export function workingIn(card: HTMLElement): boolean {
  if (sentFrom(card)) return false;
  const work = workOf(card);
  const focused = document.activeElement;
  return (
    work.typed !== '' || work.edit !== null || (isTextField(focused) && card.contains(focused))
  );
}

function focusAtEnd(field: HTMLInputElement | HTMLTextAreaElement): void {
  field.focus();
  field.setSelectionRange(field.value.length, field.value.length);
}

/** Puts what the person typed into a new drawing of the same call's card, the cursor where they typed. */
export function restoreWork(card: HTMLElement, work: CardWork): void {
  const typed = typedField(card);
  if (typed) typed.value = work.typed;
  const text = editorText(card);
  if (work.edit !== null && text) {
    (card.querySelector('[data-action="edit"]') as HTMLButtonElement).click();
    text.value = work.edit;
    // The editor checks the text again, and diffs it against the call as it is now.
    text.dispatchEvent(new Event('input'));
    focusAtEnd(text);
  } else if (typed && work.typed !== '') focusAtEnd(typed);
}

/**
 * The open card's approvals counted in place ("1 of 2 approvals (Ana
 * Lima)"), and whether too few members can give them: nothing else of the card is drawn again, so what the person types
 * stays where it is.
 */
export function refreshApprovals(card: HTMLElement, decision: Decision): void {
  if (!decision.isApproval()) return;
  for (const [selector, fresh] of [
    [':scope > .approvals', approvalsView(decision)],
    [':scope > .unreachable', unreachableView(decision)],
  ] as const) {
    const shown = card.querySelector(selector);
    if (shown && fresh) shown.replaceWith(fresh);
    else if (shown) shown.remove();
    else if (fresh) card.querySelector(':scope > .actions')?.before(fresh);
  }
}

/**
 * The note that says a call changed while the person read or worked in its
 * card or story row (`container`): its buttons still answer the call as the
 * person read it (the kernel refuses them as out of date), and "Show the
 * current call" draws it as it is now, with what they typed.
 */
export function changedNote(
  container: HTMLElement,
  edited: boolean,
  showCurrent: () => void,
): HTMLElement {
  return h(
    'div',
    { class: 'changed', role: 'status' },
    h(
      'p',
      {},
      `This call changed while you were on it${edited ? ': its input was edited' : ''}. `,
      workingIn(container) ? 'What you typed is kept. ' : '',
      'Approve and Deny here answer the call as you read it, so the kernel refuses them as out of date; show the current call to decide it as it is now.',
    ),
    h(
      'button',
      { type: 'button', 'data-action': 'show-current', onclick: showCurrent },
      'Show the current call',
    ),
  );
}

/** Says on a card, without drawing it again, that its call changed: see {@link changedNote}. */
export function sayChanged(
  card: HTMLElement,
  read: Decision,
  now: Decision,
  showCurrent: () => void,
): void {
  const edited =
    read.isApproval() && now.isApproval() && !sameJson(read.tool_input, now.tool_input);
  const note = changedNote(card, edited, showCurrent);
  const shown = card.querySelector(':scope > .changed');
  if (shown) shown.replaceWith(note);
  else card.querySelector(':scope > header')?.after(note);
}
