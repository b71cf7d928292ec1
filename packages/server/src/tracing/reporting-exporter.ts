import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { FailureStreak } from '../logging/failure-streak.js';
import { hideUrlCredentials } from '../logging/url-credentials.js';

/**
 * An exporter that says in the kernel's log when its exports fail: the
 * OpenTelemetry SDK drops a batch the collector refused or never received and
 * tells only its own diagnostic logger, which is silent unless set, so spans
 * went missing with no trace. A streak of failures is logged once (with a
 * reminder a minute) and its end when an export goes through again.
 */
export class ReportingExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly failures: FailureStreak,
    private readonly tracesUrl: string,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) this.failures.succeeded();
      else {
        this.failures.failed(result.error ?? new Error('the export failed'), {
          endpoint: hideUrlCredentials(this.tracesUrl),
          spans: spans.length,
        });
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
