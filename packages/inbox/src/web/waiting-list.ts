import type { Decision } from '@airlock/sdk';
import { h } from './dom.js';
import { factsOf, listRow, type RowEvents, type RowFacts } from './list-row.js';
import { comparePlaces, groupKey, insertionIndex, type Order, type Place } from './order.js';

/** The rows one model round of one run proposed, under one heading. */
interface Group {
  key: string;
  place: Place;
  element: HTMLLIElement;
  rows: HTMLOListElement;
  size: number;
}

/**
 * One waiting decision on the list: read from the kernel, or (`decision`
 * null) painted from the feed's events alone, read when a person opens or
 * ticks it.
 */
export interface Entry {
  decision: Decision | null;
  facts: RowFacts;
  place: Place;
  row: HTMLLIElement;
  group: Group;
}

const placeOf = (facts: RowFacts): Place => ({
  createdAt: facts.created_at,
  runId: facts.run_id,
  key: facts.task_key,
});

const keyOf = (facts: RowFacts) => `${facts.run_id}/${facts.task_key}`;

/** Whether a re-read decision shows the same as the row on the list: its version and approvals. */
export function sameWaiting(shown: Decision, read: Decision): boolean {
  if (shown.task.version !== read.task.version) return false;
  const count = (decision: Decision) =>
    decision.isApproval() ? (decision.approvals?.received.length ?? 0) : 0;
  return count(shown) === count(read);
}

/**
 * The rows of the waiting list in the page, in order (newest or oldest
 * first), grouped by run and round: a row is put in place or taken away
 * without touching the others.
 */
export class WaitingList {
  private readonly entries = new Map<string, Entry>();
  private groups: Group[] = [];
  private readonly groupsByKey = new Map<string, Group>();
  /** The filter's words, lowercased; empty shows every row. */
  private words = '';
  /** The list element. */
  readonly element = h('ol', { class: 'list', 'aria-label': 'waiting decisions' });

  constructor(
    private currentOrder: Order,
    private readonly events: RowEvents,
  ) {}

  /** Which end of the list comes first. */
  get order(): Order {
    return this.currentOrder;
  }

  /** How many rows are on the list. */
  get size(): number {
    return this.entries.size;
  }

  /** The entry of a key, if it is on the list. */
  get(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  /** Empties the list, in a new order. */
  clear(order: Order): void {
    this.currentOrder = order;
    this.entries.clear();
    this.groups = [];
    this.groupsByKey.clear();
    this.element.replaceChildren();
  }

  /** True when a row with this place would come before the last row on the list. */
  before(facts: RowFacts, last = this.lastPlace()): boolean {
    return !last || comparePlaces(placeOf(facts), last, this.currentOrder) < 0;
  }

  private lastPlace(): Place | null {
    const group = this.groups[this.groups.length - 1];
    const row = group?.rows.lastElementChild as HTMLElement | null | undefined;
    const key = row?.dataset.decision;
    return (key && this.entries.get(key)?.place) || null;
  }

  /** Puts a decision's row in its place. */
  add(decision: Decision): Entry {
    return this.put(factsOf(decision), decision);
  }

  /** Puts a row painted from the feed's events in its place; its decision is read later. */
  preview(facts: RowFacts): Entry {
    return this.put(facts, null);
  }

  /**
   * Gives a row on the list the decision read for it (same place): its row
   * is drawn again from the read, keeping its tick and whether it is open.
   */
  fill(decision: Decision): Entry | undefined {
    const facts = factsOf(decision);
    return this.redraw(keyOf(facts), facts, decision);
  }

  /**
   * Shows one more approval toward a row's quorum ("1 of 2 approvals", and
   * "too few approvers" when the event says so) in place, keeping its tick and whether it is open. The decision read for
   * it (if any) no longer says who approved: it is let go, and read again
   * when a person opens or ticks the row.
   */
  progress(key: string, progress: string | null, unreachable: boolean | null): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const reach = unreachable === null ? {} : { unreachable };
    return this.redraw(key, { ...entry.facts, progress, ...reach }, null);
  }

  /** Draws a row on the list again from new facts, keeping its tick, cursor and filter. */
  private redraw(key: string, facts: RowFacts, decision: Decision | null): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const row = listRow(facts, key, this.events);
    const tick = (of: HTMLElement) => of.querySelector('.tick') as HTMLInputElement;
    tick(row).checked = tick(entry.row).checked;
    const current = entry.row.getAttribute('aria-current');
    if (current) row.setAttribute('aria-current', current);
    row.hidden = entry.row.hidden;
    const focused = entry.row.contains(document.activeElement);
    entry.row.replaceWith(row);
    if (focused) (row.querySelector('.open') as HTMLElement).focus({ preventScroll: true });
    const drawn: Entry = { ...entry, decision, facts, row };
    this.entries.set(key, drawn);
    return drawn;
  }

  private put(facts: RowFacts, decision: Decision | null): Entry {
    const key = keyOf(facts);
    const place = placeOf(facts);
    const group = this.groupFor(facts, place);
    const row = listRow(facts, key, this.events);
    const entry: Entry = { decision, facts, place, row, group };
    row.hidden = !this.matches(facts);
    if (group.size === 0) group.element.hidden = row.hidden;
    else if (!row.hidden) group.element.hidden = false;
    group.rows.insertBefore(row, this.nextInGroup(group, place));
    group.size += 1;
    group.element.classList.toggle('many', group.size > 1);
    this.entries.set(key, entry);
    return entry;
  }

  /** The row of a group a row with this place goes before; null at its end. */
  private nextInGroup(group: Group, place: Place): Element | null {
    const placeOfRow = (row: Element | null) =>
      this.entries.get((row as HTMLElement | null)?.dataset.decision ?? '')?.place;
    // A page's rows come in list order: most go at the end, found without a walk.
    const last = placeOfRow(group.rows.lastElementChild);
    if (!last || comparePlaces(place, last, this.currentOrder) >= 0) return null;
    for (const sibling of group.rows.children) {
      const other = placeOfRow(sibling);
      if (other && comparePlaces(place, other, this.currentOrder) < 0) return sibling;
    }
    return null;
  }

  private groupFor(facts: RowFacts, place: Place): Group {
    const key = groupKey(facts);
    const known = this.groupsByKey.get(key);
    if (known) return known;
    const rows = h('ol', { class: 'group-rows' });
    const element = h(
      'li',
      { class: 'group', 'data-group': key },
      h('p', { class: 'group-head' }, `Run ${facts.run_id}, round ${facts.round}`),
      rows,
    );
    const group: Group = { key, place, element, rows, size: 0 };
    const index = insertionIndex(this.groups, group, (a, b) =>
      comparePlaces(a.place, b.place, this.currentOrder),
    );
    this.element.insertBefore(element, this.groups[index]?.element ?? null);
    this.groups.splice(index, 0, group);
    this.groupsByKey.set(key, group);
    return group;
  }

  /** Takes a row away; false when it was not on the list. */
  remove(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    entry.row.remove();
    this.entries.delete(key);
    const group = entry.group;
    group.size -= 1;
    group.element.classList.toggle('many', group.size > 1);
    if (group.size === 0) {
      group.element.remove();
      this.groupsByKey.delete(group.key);
      this.groups.splice(this.groups.indexOf(group), 1);
    }
    return true;
  }

  /** Whether a filter hides the rows that do not match it. */
  get filtering(): boolean {
    return this.words !== '';
  }

  /** How many rows on the list the filter shows. */
  get matching(): number {
    let shown = 0;
    for (const entry of this.entries.values()) if (!entry.row.hidden) shown += 1;
    return shown;
  }

  /** True when the row of this key is on the list and the filter shows it. */
  shows(key: string): boolean {
    const row = this.entries.get(key)?.row;
    return row !== undefined && !row.hidden;
  }

  /** The rows a person sees now (the filter hides the others), in order. */
  visibleRows(): HTMLElement[] {
    return [...this.element.querySelectorAll<HTMLElement>('li.row:not([hidden])')];
  }

  /** The key after (or else before) this one among the visible rows. */
  neighbour(key: string): string | null {
    const rows = this.visibleRows();
    const at = rows.findIndex((row) => row.dataset.decision === key);
    const next = rows[at + 1] ?? rows[at - 1];
    return next?.dataset.decision ?? null;
  }

  /** The keys just before and just after this one among the visible rows. */
  neighbours(key: string): { previous: string | null; next: string | null } {
    const rows = this.visibleRows();
    const at = rows.findIndex((row) => row.dataset.decision === key);
    if (at === -1) return { previous: null, next: null };
    return {
      previous: rows[at - 1]?.dataset.decision ?? null,
      next: rows[at + 1]?.dataset.decision ?? null,
    };
  }

  /**
   * Hides the rows whose call, prompt or run does not contain the words;
   * rows put on the list later are filtered as they come.
   */
  filter(text: string): void {
    this.words = text.trim().toLowerCase();
    for (const entry of this.entries.values()) entry.row.hidden = !this.matches(entry.facts);
    for (const group of this.groups) {
      group.element.hidden = this.words !== '' && !group.rows.querySelector('li.row:not([hidden])');
    }
  }

  private matches(facts: RowFacts): boolean {
    if (this.words === '') return true;
    return `${facts.summary} ${facts.run_id}`.toLowerCase().includes(this.words);
  }

  /** The first or the last row, for the "N new" marker. */
  edge(first: boolean): Element | null {
    return first ? this.element.firstElementChild : this.element.lastElementChild;
  }
}
