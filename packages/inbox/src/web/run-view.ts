import {
  type FeedEvent,
  type RunHandle,
  type RunView,
  type TaskView,
  visibleText,
  type Workspace,
} from '@airlock/sdk';
import { Announcer } from './announcer.js';
import { approvedWords } from './card-verbs.js';
import { changedNote, restoreWork, workOf } from './card-work.js';
import { h } from './dom.js';
import { sameJson } from './input-changes.js';
import type { PrincipalNames } from './principal-names.js';
import { REACH_CHANGES } from './reach-change.js';
import { planView, roundPlanOf } from './round-plan.js';
import { endSessionOn } from './session-end.js';
import { decisionOf, type StoryDecision } from './story.js';
import {
  type BuiltRow,
  decisionList,
  keepsRead,
  sayReachability,
  signatureOf,
  storyRow,
  typingIn,
} from './story-rows.js';
import { UnsentNote } from './unsent-note.js';

/**
 * One run's story, live: its rows in order with their states, what the model
 * read after each, and every decision on each row with who or what made it.
 * It follows the run's feed from the beginning, so history and live events
 * arrive the same way.
 */
export class RunStoryView {
  private readonly controller = new AbortController();
  private readonly decisions = new Map<string, StoryDecision[]>();
  /** What the model wrote beside each round's calls, by round (from `run.round_started`). */
  private readonly plans = new Map<number, string>();
  private tasks: TaskView[] = [];
  private run: RunView | null = null;
  /** The run's line as shown; a screen reader hears it through the announcer, at most every 10 s. */
  private readonly summary = h('p', { class: 'run-summary' }, 'Loading the run…');
  private readonly announcer = new Announcer();
  private readonly goal = h('p', { class: 'goal', 'aria-label': 'the run’s goal' });
  private readonly answer = h('p', { class: 'final-answer', hidden: true });
  private readonly handle: RunHandle;
  private readonly rows = h('ol', { class: 'rows', 'aria-label': 'the run’s rows in order' });
  /** Each row's element and what it showed, so an unchanged row is left alone. */
  private readonly built = new Map<string, BuiltRow>();
  private refreshing = false;
  private again = false;
  /** What a person was typing into a row that stopped waiting under them: kept, never sent. */
  private readonly unsent = new UnsentNote(() => {
    this.rows.tabIndex = -1;
    this.rows.focus({ preventScroll: true });
  });

  constructor(
    private readonly workspace: Workspace,
    private readonly runId: string,
    private readonly names: PrincipalNames,
  ) {
    this.handle = workspace.runs.run(runId);
  }

  /** The view's root element. */
  render(): HTMLElement {
    return h(
      'section',
      { class: 'run-view', 'aria-labelledby': 'run-title' },
      h('p', {}, h('a', { href: '#/' }, '← Back to the inbox')),
      h('h2', { id: 'run-title' }, `Run ${this.runId}`),
      h('h3', {}, 'Goal'),
      this.goal,
      this.summary,
      this.announcer.element,
      this.answer,
      this.unsent.element,
      this.rows,
    );
  }

  /** Reads the run and people's names, then follows the run's feed until {@link stop}. */
  async start(): Promise<void> {
    await Promise.all([this.refresh(), this.names.load()]);
    void this.follow();
  }

  /**
   * A revoke, a new member or a replaced approval policy is no event of the
   * run: the workspace's feed brings it (`policy.changed`), and the rows are
   * read again, so a parked row says whether too few members can approve it.
   * The feed starts at the workspace's head once it is open, so the rows are
   * read once more then: a change after the first read but before that head
   * would otherwise never be said.
   */
  private async followPolicy(): Promise<void> {
    try {
      let opened = false;
      const feed = this.workspace.feed({
        after: 'latest',
        signal: this.controller.signal,
        // A reconnection resumes after the last event heard: only the first opening leaves a gap.
        onStatus: (status) => {
          if (status !== 'open' || opened) return;
          opened = true;
          void this.scheduleRefresh();
        },
      });
      for await (const event of feed) {
        const change = (event.data as { change?: unknown } | null)?.change;
        if (event.type === 'policy.changed' && REACH_CHANGES.has(String(change)))
          void this.scheduleRefresh();
      }
    } catch {
      // The run's own feed says a failure, or ends the session, for both.
    }
  }

  /** Stops following the feed. */
  stop(): void {
    this.controller.abort();
  }

  private async follow(): Promise<void> {
    try {
      let policy = false;
      const feed = this.handle.feed({
        after: 0,
        signal: this.controller.signal,
        // The workspace's feed opens once the run's is open: the run's own comes first.
        onStatus: (status) => {
          if (status !== 'open' || policy) return;
          policy = true;
          void this.followPolicy();
        },
      });
      for await (const event of feed) this.onEvent(event);
    } catch (error) {
      if (!this.controller.signal.aborted && !this.endedOn(error)) {
        this.showSummary(`The run's feed failed: ${(error as Error).message}`);
      }
    }
  }

  /** A read refused for the token: the feed stops and the session ends (no stale Approve stays). */
  private endedOn(error: unknown): boolean {
    if (!endSessionOn(error)) return false;
    this.stop();
    return true;
  }

  private onEvent(event: FeedEvent): void {
    const decision = decisionOf(event, this.names.of);
    if (decision) {
      const list = this.decisions.get(decision.taskKey) ?? [];
      if (!list.some((known) => known.seq === decision.seq)) list.push(decision);
      this.decisions.set(decision.taskKey, list);
    }
    const plan = roundPlanOf(event);
    if (plan && !this.plans.has(plan.round)) {
      this.plans.set(plan.round, plan.text);
      this.placePlans();
    }
    if (event.type === 'run.model_read' || event.type === 'run.round_started') return;
    void this.scheduleRefresh();
  }

  private async scheduleRefresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.again = false;
        await this.refresh();
      } while (this.again);
    } catch (error) {
      if (this.endedOn(error)) return;
      this.showSummary(`Cannot read the run: ${(error as Error).message}`);
    } finally {
      this.refreshing = false;
    }
  }

  private async refresh(): Promise<void> {
    const [run, tasks] = await Promise.all([this.handle.get(), this.handle.tasks()]);
    this.run = run;
    this.tasks = tasks;
    this.draw();
  }

  private draw(): void {
    const run = this.run;
    if (!run) return;
    this.goal.textContent = visibleText(run.input || '(started without an input text)');
    this.showSummary(
      `State ${run.state} · mode ${run.approval_mode} · ${this.tasks.length} row(s)`,
    );
    this.summary.dataset.state = run.state;
    this.answer.hidden = run.final_answer === null;
    this.answer.replaceChildren(
      h('strong', {}, 'Final answer: '),
      h('span', { class: 'answer-text' }, visibleText(run.final_answer ?? '')),
    );
    this.placeRows();
  }

  /**
   * Puts the rows in order, building anew only a row whose call changed: an
   * untouched row keeps its element, so an editor open on it (its text, the
   * cursor) survives the run's other events. A row whose decisions alone
   * grew (the feed's history arriving after the first drawing, another
   * person's approval) gets its list of decisions redrawn in place. A parked
   * row whose call changed while it still waits (another lead's edit) is not
   * drawn again under the person reading it: the row says it changed, its
   * buttons stay bound to the version read, and "Show the current call"
   * draws it as it is now, with what they typed (see {@link sayChanged}).
   */
  private placeRows(): void {
    const seen = new Set<string>();
    const wanted = this.tasks.map((task) => {
      seen.add(task.key);
      const decisions = this.decisions.get(task.key) ?? [];
      const signature = signatureOf(task);
      const known = this.built.get(task.key);
      if (known && (known.signature === signature || keepsRead(known, task))) {
        if (known.signature !== signature) this.sayChanged(known, task);
        // An approval leaves the row's version as it was, but may be where a revoke shows.
        sayReachability(known.element, task);
        if (known.decisions !== decisions.length) {
          known.element
            .querySelector(':scope > .decisions')
            ?.replaceWith(decisionList(task.key, decisions));
          known.decisions = decisions.length;
        }
        return known.element;
      }
      const typing = known ? typingIn(known.element) : null;
      const element = this.build(task);
      // It stopped waiting while the person typed in it: what they typed, and the cursor, go to a note.
      if (known && typing)
        this.unsent.keep(known.element.querySelector('h3')?.textContent ?? task.key, typing.value);
      return element;
    });
    for (const key of this.built.keys()) if (!seen.has(key)) this.built.delete(key);
    wanted.forEach((element, index) => {
      const at = this.rows.children[index] ?? null;
      if (at !== element) this.rows.insertBefore(element, at);
    });
    while (this.rows.children.length > wanted.length) this.rows.lastElementChild?.remove();
    this.placePlans();
  }

  /** Puts each round's plan above its first row, where the row has none yet (rows are kept, plans come later). */
  private placePlans(): void {
    const first = new Map<number, string>();
    for (const task of this.tasks) if (!first.has(task.round)) first.set(task.round, task.key);
    for (const [round, key] of first) {
      const text = this.plans.get(round);
      const element = this.built.get(key)?.element;
      if (text === undefined || !element || element.querySelector(':scope > .plan')) continue;
      element.prepend(planView({ round, text }));
    }
  }

  /** Draws a row as `task` has it, and remembers it as what the person reads. */
  private build(task: TaskView): HTMLElement {
    const element = this.rowItem(task);
    const decisions = this.decisions.get(task.key)?.length ?? 0;
    this.built.set(task.key, {
      signature: signatureOf(task),
      element,
      decisions,
      task,
      current: null,
    });
    return element;
  }

  /** Says on a parked row, without drawing it again, that its call changed since it was drawn. */
  private sayChanged(known: BuiltRow, now: TaskView): void {
    if (known.current && signatureOf(known.current) === signatureOf(now)) return;
    known.current = now;
    const edited = !sameJson(known.task.tool_input, now.tool_input);
    const note = changedNote(known.element, edited, () => this.showCurrent(now.key));
    const actions = known.element.querySelector(':scope > .row-actions');
    const shown = actions?.querySelector(':scope > .changed');
    if (shown) shown.replaceWith(note);
    else actions?.prepend(note);
  }

  /** Draws a parked row as it is now, in place, with what the person typed in it. */
  private showCurrent(key: string): void {
    const known = this.built.get(key);
    if (!known?.current) return;
    const work = workOf(known.element);
    restoreWork(this.redraw(known, known.current), work);
    this.keepFocus(key);
  }

  /**
   * An approval of the person's own that the quorum still waits beyond: the
   * row is drawn as the kernel answered (its buttons bound to that version,
   * to deny it still), with the approval said in words.
   */
  private recorded(answer: TaskView, words: string): void {
    const known = this.built.get(answer.key);
    if (!known) return;
    const element = this.redraw(known, answer);
    (element.querySelector('.row-actions > .message') as HTMLElement).textContent = words;
    this.keepFocus(answer.key);
  }

  /** Draws a row anew in place of its drawing. */
  private redraw(known: BuiltRow, task: TaskView): HTMLElement {
    const element = this.build(task);
    known.element.replaceWith(element);
    this.placePlans();
    return element;
  }

  /** Keeps the keyboard on a row drawn anew, when nothing in it took the focus. */
  private keepFocus(key: string): void {
    const element = this.built.get(key)?.element;
    if (!element || element.contains(document.activeElement)) return;
    element.tabIndex = -1;
    element.focus({ preventScroll: true });
  }

  private rowItem(task: TaskView): HTMLElement {
    return storyRow(task, {
      decisions: this.decisions.get(task.key) ?? [],
      actions: {
        decide: async (verb, { reason, toolInput }) => {
          const decision = await this.workspace.decisions.get(this.runId, task.key);
          if (!decision?.isApproval()) throw new Error('this call no longer waits');
          // Bound to the version drawn: one that changed since is refused by the kernel.
          const version = task.version;
          if (verb === 'approve') {
            const answer = await decision.approve({
              version,
              ...(toolInput === undefined ? {} : { tool_input: toolInput }),
            });
            if (answer.state === 'needs_approval') {
              this.recorded(answer, approvedWords(answer, { edited: toolInput !== undefined }));
              return;
            }
          } else await decision.deny({ version, ...(reason ? { reason } : {}) });
          await this.scheduleRefresh();
        },
      },
    });
  }

  /** Shows the run's line, and has the announcer say it (a long run's rows are not said one by one). */
  private showSummary(text: string): void {
    this.summary.textContent = text;
    this.announcer.say(text);
  }
}
