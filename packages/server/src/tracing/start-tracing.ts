import type { Logger } from 'pino';
import { hideUrlCredentials } from '../logging/url-credentials.js';
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
  const base = parseOtlpEndpoint(options.endpoint);
  const { createCallTracing } = await import('./otel-call-tracing.js');
  return createCallTracing({
    tracesUrl: tracesUrlOf(base),
    serviceName: options.serviceName ?? 'airlock',
    logger: options.logger,
  });
}

/**
 * Reads an OTLP/HTTP base URL; `source` names where it came from (a flag, a
 * variable) in the error, so `airlock serve` refuses it as a usage error.
 * @throws Error when the text is not an http(s) URL.
 */
export function parseOtlpEndpoint(text: string, source = 'the OTLP endpoint'): URL {
  let base: URL | null = null;
  try {
    base = new URL(text);
  } catch {
    // Not a URL: said below, as for another scheme.
  }
  if (base?.protocol !== 'http:' && base?.protocol !== 'https:') {
    const shown = text === '' ? 'an empty value' : hideUrlCredentials(text);
    throw new Error(`${source} wants an http(s) URL such as http://127.0.0.1:4318, not ${shown}`);
  }
  return base;
}

/** The traces URL of an OTLP base URL (`/v1/traces` appended, as the OTLP exporter spec says). */
export function tracesUrlOf(base: URL): string {
  const text = base.toString().replace(/\/+$/, '');
  return text.endsWith('/v1/traces') ? text : `${text}/v1/traces`;
}
