import { parseArgs } from 'node:util';
import { parseFailureText } from './command-line.js';

/** The flags `airlock serve` takes. */
const SERVE_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  durability: { type: 'string' },
  'park-ttl': { type: 'string' },
  lease: { type: 'string' },
  'body-limit': { type: 'string' },
  'request-timeout': { type: 'string' },
  'headers-timeout': { type: 'string' },
  'idle-timeout': { type: 'string' },
  'rate-limit': { type: 'string' },
  'max-feeds': { type: 'string' },
  'auth-failure-limit': { type: 'string' },
  'log-level': { type: 'string' },
  'retention-export-dir': { type: 'string' },
  'retention-interval': { type: 'string' },
  'retention-pace': { type: 'string' },
  'metrics-listen': { type: 'string' },
  'no-metrics': { type: 'boolean' },
  'otlp-endpoint': { type: 'string' },
  'model-timeout': { type: 'string' },
  'model-max-calls': { type: 'string' },
  'model-base-urls': { type: 'string' },
  'no-demo': { type: 'boolean' },
  notifications: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `airlock serve`'s flags as read. */
export type ServeFlags = ReturnType<typeof parseArgs<{ options: typeof SERVE_OPTIONS }>>['values'];

/**
 * Reads `airlock serve`'s flags, with nothing loaded but Node's parser: an
 * unknown flag or a missing value is told at Node's start-up cost.
 * @returns the flags, or the line that says what is wrong with them.
 */
export function parseServeArgs(argv: string[]): ServeFlags | { refused: string } {
  try {
    return parseArgs({ args: argv, options: SERVE_OPTIONS }).values;
  } catch (error) {
    return { refused: `${parseFailureText(error)} (see airlock serve --help)` };
  }
}
