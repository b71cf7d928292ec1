/** A W3C Trace Context `traceparent` of version 00: version, trace id, parent span id, flags. */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The value as a `traceparent` header to send, or null when it is not a valid
 * one (absent, another version, all-zero ids, upper-case hex): a client never
 * forwards a header the kernel would have to discard.
 */
export function traceparentOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return TRACEPARENT.test(text) ? text : null;
}

/**
 * The `traceparent` a client process inherited through its environment
 * (`TRACEPARENT`, OpenTelemetry's environment carrier), or null.
 */
export function inheritedTraceparent(
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  return traceparentOf(env.TRACEPARENT);
}
