import type { EventView } from '../kernel/views.js';
import { textFrame } from './websocket-frame.js';

/**
 * One event on its way to feed subscribers: its view, and its wire frames
 * serialized once, however many subscribers receive it.
 */
export class FeedItem {
  #frame: string | undefined;
  #wire: Buffer | undefined;
  readonly #nudges = new Map<string | null, string | null>();

  constructor(readonly view: EventView) {}

  /** The lifecycle feed's frame: `{"type":"event","event":…}`. */
  get frame(): string {
    this.#frame ??= JSON.stringify({ type: 'event', event: this.view });
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
