import type { Decision, Workspace } from '@airlock/sdk';
import type { WaitingList } from './waiting-list.js';
import type { WaitingPages } from './waiting-pages.js';

/** What reading a row asks of the inbox around it. */
export interface RowReadsHost {
  /** A row read as no longer waiting (decided elsewhere): it goes, and its coming settling event changes no count. */
  stoppedWaiting(key: string): void;
  /** A read failed. */
  fail(error: unknown): void;
}

/**
 * Reads the decisions of single rows: a row that changed while it waits, or
 * one drawn from its feed events once a person opens or ticks it. A row is
 * read once however many ask for it while the read is on the way.
 */
export class RowReads {
  private readonly pending = new Map<string, Promise<Decision | null>>();

  constructor(
    private readonly options: {
      workspace: Workspace;
      list: WaitingList;
      pages: WaitingPages;
      host: RowReadsHost;
    },
  ) {}

  /**
   * Reads one row as the kernel has it now (null when it no longer waits).
   * @throws whatever the SDK throws (a refused token, a failed connection).
   */
  read(runId: string, taskKey: string): Promise<Decision | null> {
    const key = `${runId}/${taskKey}`;
    let reading = this.pending.get(key);
    if (!reading) {
      const asked = this.options.workspace.decisions.get(runId, taskKey);
      this.pending.set(key, asked);
      // A read let go of (`forget`) leaves a later read of the row in place.
      const done = () => this.pending.get(key) === asked && this.pending.delete(key);
      asked.then(done, done);
      reading = asked;
    }
    return reading;
  }

  /**
   * Lets go of a read of this row on the way: the row changed since it was
   * asked for (one more approval), so the next read asks afresh.
   */
  forget(key: string): void {
    this.pending.delete(key);
  }

  /**
   * The decision of a row on the list, read now if it was drawn from its
   * events (its row is drawn again from the read); null once it is off the
   * list, or when it no longer waits (its row goes). A row drawn again while
   * its read was on the way (one more approval) is read again. A failed read
   * is reported to the host and answers null.
   */
  async decisionOf(key: string): Promise<Decision | null> {
    const { list, pages, host } = this.options;
    let entry = list.get(key);
    if (!entry) return null;
    if (entry.decision) return entry.decision;
    const generation = pages.generation;
    let decision: Decision | null;
    for (;;) {
      try {
        decision = await this.read(entry.facts.run_id, entry.facts.task_key);
      } catch (error) {
        host.fail(error);
        return null;
      }
      const now = list.get(key);
      if (generation !== pages.generation || !now) return null;
      if (now.decision) return now.decision;
      if (now === entry) break;
      entry = now;
    }
    if (decision === null) {
      host.stoppedWaiting(key);
      return null;
    }
    list.fill(decision);
    return decision;
  }
}
