import { type EventView, eventView } from '../kernel/views.js';
import type { RunEventTable } from '../store/schema.js';
import { textFrame } from './websocket-frame.js';

/** The columns of a stored event a feed item is built from. */
export type FeedRow = Pick<
  RunEventTable,
  'seq' | 'run_id' | 'task_key' | 'type' | 'data' | 'principal' | 'created_at'
>;

/**
 * One event on its way to feed subscribers: its view, and its wire frames
 * serialized once, however many subscribers receive it. The lifecycle feed's
 * frame embeds the stored `data` text as it is (the kernel wrote it with
 * `JSON.stringify`), so a subscriber of every event costs no parse and no
 * second stringify of each event's data; the view is parsed only for those
 * who read it (a fenced subscriber's run lookup, an executor's nudge).
 */
export class FeedItem {
  #view: EventView | undefined;
  #frame: string | undefined;
  #wire: Buffer | undefined;
  readonly #nudges = new Map<string | null, string | null>();

  constructor(readonly row: FeedRow) {}

  get view(): EventView {
    this.#view ??= eventView(this.row);
    return this.#view;
  }

  /** The lifecycle feed's frame: `{"type":"event","event":…}`, the view's keys in its order. */
  get frame(): string {
    if (this.#frame === undefined) {
      const row = this.row;
      this.#frame =
        `{"type":"event","event":{"seq":${JSON.stringify(row.seq)},"run_id":${JSON.stringify(row.run_id)}` +
        `,"task_key":${JSON.stringify(row.task_key)},"type":${JSON.stringify(row.type)},"data":${row.data}` +
        `,"principal":${JSON.stringify(row.principal)},"created_at":${JSON.stringify(row.created_at)}}}`;
    }
    return this.#frame;
  }

  /** The lifecycle feed's frame as WebSocket wire bytes, built once for every socket. */
  get wireFrame(): Buffer {
    this.#wire ??= textFrame(this.frame);
    return this.#wire;
  }

  /**
   * A frame derived from the event for one audience (e.g. an executor cable's
   * nudge for one agent application), computed once per audience.
   */
  frameFor(audience: string | null, derive: (view: EventView) => unknown): string | null {
    if (this.#nudges.has(audience)) return this.#nudges.get(audience) ?? null;
    const message = derive(this.view);
    const frame = message === null || message === undefined ? null : JSON.stringify(message);
    this.#nudges.set(audience, frame);
    return frame;
  }
}
