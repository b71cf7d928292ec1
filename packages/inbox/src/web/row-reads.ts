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
      reading = this.options.workspace.decisions.get(runId, taskKey);
      this.pending.set(key, reading);
      const done = () => this.pending.delete(key);
      reading.then(done, done);
    }
    return reading;
  }

  /**
   * The decision of a row on the list, read now if it was drawn from its
   * events (its row is drawn again from the read); null once it is off the
   * list, or when it no longer waits (its row goes). A failed read is
   * reported to the host and answers null.
   */
  async decisionOf(key: string): Promise<Decision | null> {
    const { list, pages, host } = this.options;
    const entry = list.get(key);
    if (!entry) return null;
    if (entry.decision) return entry.decision;
    const generation = pages.generation;
    let decision: Decision | null;
    try {
      decision = await this.read(entry.facts.run_id, entry.facts.task_key);
    } catch (error) {
      host.fail(error);
      return null;
    }
    const now = list.get(key);
    if (generation !== pages.generation || !now) return null;
    if (now.decision) return now.decision;
    if (decision === null) {
      host.stoppedWaiting(key);
      return null;
    }
    list.fill(decision);
    return decision;
  }
}
