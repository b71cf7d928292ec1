import type { Logger } from 'pino';

/**
 * What the log says of gauges that could not be read at scrape time: one
 * error when the first scrape leaves some out, one line when a scrape reads
 * them all again, and nothing in between. Prometheus scrapes every few
 * seconds, so a line (with its stack) per scrape would bury an outage's
 * other lines under its own.
 */
export class GaugeOutageLog {
  private failedScrapes = 0;

  constructor(private readonly logger: Logger) {}

  /** Takes the errors of one scrape's reads (none when every gauge was read). */
  scraped(errors: readonly unknown[]): void {
    if (errors.length === 0) {
      if (this.failedScrapes > 0) {
        this.logger.info(
          { failed_scrapes: this.failedScrapes },
          'metrics: the gauges read from the store are read again',
        );
      }
      this.failedScrapes = 0;
      return;
    }
    this.failedScrapes += 1;
    if (this.failedScrapes > 1) return;
    this.logger.error(
      { err: errors[0], unread: errors.length },
      'metrics: a gauge could not be read; it is left out of scrapes until the store answers',
    );
  }
}
