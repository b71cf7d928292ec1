import type { Logger } from 'pino';
import type { CallTracing } from './call-tracing.js';

/** Where traces go (`--otlp-endpoint`, or `OTEL_EXPORTER_OTLP_ENDPOINT`). */
export interface TracingOptions {
  /** An OTLP/HTTP base URL such as `http://127.0.0.1:4318`; spans go to `<url>/v1/traces`. */
  endpoint: string;
  /** `service.name` of the spans; default `airlock`. */
  serviceName?: string | undefined;
  /** Where failed exports are reported (a streak once, and its end). */
  logger: Logger;
}

/**
 * Starts exporting the spans of calls over OTLP/HTTP (JSON). OpenTelemetry's
 * packages are loaded here, on demand: a kernel without an endpoint never loads them.
 * @throws Error when the endpoint is not an http(s) URL.
 */
export async function startTracing(options: TracingOptions): Promise<CallTracing> {
  let base: URL;
  try {
    base = new URL(options.endpoint);
  } catch {
    throw new Error(`the OTLP endpoint ${options.endpoint} is not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new Error(`the OTLP endpoint ${options.endpoint} is not an http(s) URL`);
  }
  const { createCallTracing } = await import('./otel-call-tracing.js');
  return createCallTracing({
    tracesUrl: tracesUrlOf(base),
    serviceName: options.serviceName ?? 'airlock',
    logger: options.logger,
  });
}

/** The traces URL of an OTLP base URL (`/v1/traces` appended, as the OTLP exporter spec says). */
export function tracesUrlOf(base: URL): string {
  const text = base.toString().replace(/\/+$/, '');
  return text.endsWith('/v1/traces') ? text : `${text}/v1/traces`;
}
