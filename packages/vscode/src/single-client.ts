/** What the extension starts and stops: the language client. */
export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * Keeps at most one client running. `restart` stops the running client and
 * starts a new one, one restart at a time, so settings changed twice in a
 * row never leave two servers running. A failed start leaves none running
 * and rejects that call; the next restart tries again.
 */
export class SingleClient<Client extends Stoppable> {
  private current: Client | undefined;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly start: () => Promise<Client>) {}

  /** Stops the running client (if any), then starts a new one. */
  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.stopCurrent();
      this.current = await this.start();
    });
  }

  /** Stops the running client (if any). */
  stop(): Promise<void> {
    return this.enqueue(() => this.stopCurrent());
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const done = this.queue.then(step);
    this.queue = done.catch(() => undefined);
    return done;
  }

  private async stopCurrent(): Promise<void> {
    const running = this.current;
    this.current = undefined;
    await running?.stop();
  }
}
