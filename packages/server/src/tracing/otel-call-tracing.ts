import {
  type Context,
  context,
  defaultTextMapGetter,
  type Link,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import { readNote } from '../api/request-notes.js';
import { FailureStreak } from '../logging/failure-streak.js';
import { hideUrlCredentials } from '../logging/url-credentials.js';
import type { CallAddress, CallTracing } from './call-tracing.js';
import { ReportingExporter } from './reporting-exporter.js';

/** The longest the kernel's stop waits for its last spans to be exported. */
const STOP_FLUSH_MS = 2000;

/** Most calls of each kind (waiting, granted) whose trace context is kept (oldest dropped first). */
const KEPT_CALLS = 10_000;

/** Trace contexts of calls by key, at most `limit` of them (the oldest dropped first). */
class KeptContexts {
  private readonly contexts = new Map<string, Context>();

  constructor(private readonly limit: number) {}

  get(key: string): Context | undefined {
    return this.contexts.get(key);
  }

  set(key: string, kept: Context): void {
    this.contexts.delete(key);
    if (this.contexts.size >= this.limit) {
      this.contexts.delete(this.contexts.keys().next().value as string);
    }
    this.contexts.set(key, kept);
  }

  delete(key: string): void {
    this.contexts.delete(key);
  }
}

/** The stage's outcomes after which a person decides the call. */
const WAITING_OUTCOMES = new Set(['parked', 'asked']);

/**
 * The OpenTelemetry implementation of {@link CallTracing}, loaded only when an
 * endpoint is configured. A call's spans after its first request (park,
 * decision, claim, commit) join the trace of the request that brought the
 * call: its context is kept in memory, per call, until the commit.
 */
export function createCallTracing(options: {
  tracesUrl: string;
  serviceName: string;
  logger: Logger;
  /** Most calls of each kind whose context is kept; default {@link KEPT_CALLS}. */
  keptCalls?: number | undefined;
}): CallTracing {
  // Several kernels in one process share the one context manager; the first registers it.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(
        new ReportingExporter(
          new OTLPTraceExporter({ url: options.tracesUrl }),
          new FailureStreak(options.logger, 'OTLP trace export', { level: 'warn' }),
          options.tracesUrl,
        ),
        { scheduledDelayMillis: 500 },
      ),
    ],
  });
  const tracer = provider.getTracer('@airlock/server');
  const propagator = new W3CTraceContextPropagator();
  // Apart: calls granted at once (a hooked agent's, never claimed here) come by the thousand and
  // would push out the context of a call that waits hours for a person.
  const waiting = new KeptContexts(options.keptCalls ?? KEPT_CALLS);
  const granted = new KeptContexts(options.keptCalls ?? KEPT_CALLS);
  const keyOf = (call: CallAddress) => `${call.runId}/${call.key}`;
  const attributesOf = (call: CallAddress) => ({
    'airlock.workspace_id': call.workspaceId,
    'airlock.run_id': call.runId,
    'airlock.task_key': call.key,
  });
  /** The context a call's later spans hang from: the first request's, else the current one. */
  const callContext = (call: CallAddress) =>
    waiting.get(keyOf(call)) ?? granted.get(keyOf(call)) ?? context.active();
  /** The current request's span, linked from a call span that hangs elsewhere. */
  const requestLinks = (parent: Context): Link[] => {
    const current = trace.getSpanContext(context.active());
    const own = trace.getSpanContext(parent);
    return current && current.spanId !== own?.spanId ? [{ context: current }] : [];
  };

  return {
    serve(req, res, handle) {
      const parent = propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
      const span = tracer.startSpan(
        `HTTP ${req.method ?? ''}`,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '' } },
        parent,
      );
      res.once('close', () => {
        const note = readNote(res);
        if (note?.operation) {
          span.updateName(note.operation);
          span.setAttribute('airlock.operation', note.operation);
        }
        if (note?.errorCode) span.setAttribute('airlock.error_code', note.errorCode);
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
      context.with(trace.setSpan(parent, span), handle);
    },
    stageDecided(call, decided) {
      const parent = context.active();
      // A call denied or failed at the stage has no later span.
      if (WAITING_OUTCOMES.has(decided.outcome)) waiting.set(keyOf(call), parent);
      else if (decided.outcome === 'granted') granted.set(keyOf(call), parent);
      tracer
        .startSpan(
          'airlock.stage',
          {
            startTime: decided.startedAt,
            attributes: {
              ...attributesOf(call),
              'airlock.outcome': decided.outcome,
              'airlock.layer': decided.layer,
              'airlock.tool_name': decided.toolName,
            },
          },
          parent,
        )
        .end();
    },
    personDecided(call, decided) {
      const parent = callContext(call);
      if (decided.parked) {
        tracer
          .startSpan(
            'airlock.park',
            { startTime: decided.parkedAt, attributes: attributesOf(call) },
            parent,
          )
          .end();
      }
      tracer
        .startSpan(
          'airlock.decision',
          {
            startTime: decided.startedAt,
            attributes: { ...attributesOf(call), 'airlock.decision': decided.verb },
            links: requestLinks(parent),
          },
          parent,
        )
        .end();
      waiting.delete(keyOf(call));
      // An approved call is claimed and committed later; one denied, cancelled or answered ends here.
      if (decided.verb === 'approve') granted.set(keyOf(call), parent);
    },
    callStep(call, step, taken) {
      const parent = callContext(call);
      tracer
        .startSpan(
          `airlock.${step}`,
          {
            startTime: taken.startedAt,
            attributes: { ...attributesOf(call), ...taken.attributes },
            links: requestLinks(parent),
          },
          parent,
        )
        .end();
      if (step === 'commit') {
        waiting.delete(keyOf(call));
        granted.delete(keyOf(call));
      }
    },
    async shutdown() {
      // A collector that refuses or does not answer neither fails the kernel's stop nor holds
      // it past STOP_FLUSH_MS: the exporter has logged the batch it lost (ReportingExporter).
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<'unsent'>((settle) => {
        timer = setTimeout(() => settle('unsent'), STOP_FLUSH_MS);
        timer.unref();
      });
      const ended = await Promise.race([provider.shutdown().catch(() => 'failed' as const), bound]);
      clearTimeout(timer);
      if (ended === 'unsent') {
        options.logger.warn(
          { endpoint: hideUrlCredentials(options.tracesUrl), waited_ms: STOP_FLUSH_MS },
          'OTLP trace export: the last spans were not sent before the stop',
        );
      }
    },
  };
}
