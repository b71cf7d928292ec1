/**
 * `@airlock/core/command-line`: what Airlock's command lines share (reading a kernel URL, a
 * request timeout and a duration, escaping text for a terminal, repeating a word given
 * without repeating a secret, saying where a JSON file broke),
 * with no schema behind it. A command line reads its arguments with these before it loads the
 * contracts' Zod schemas, so a mistyped flag is refused at Node's start-up cost.
 */
export {
  DEFAULT_KERNEL_URL,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type DurationBounds,
  elapsedSince,
  formatDuration,
  forTerminal,
  isLoopbackHost,
  isSettingError,
  type KernelUrl,
  mayBeSecret,
  type ProgressLine,
  type ProgressStream,
  parseDuration,
  progressAllowed,
  progressLine,
  type RefusalText,
  type RequestTimeout,
  readKernelUrl,
  readRequestTimeout,
  refusalLines,
  SettingError,
  type SettingErrorCode,
  type StageTicker,
  shellQuoted,
  shownKernelUrl,
  shownWord,
  stageTicker,
  terminalJson,
  unknownCommandLine,
  unknownVerbLine,
} from './terminal/index.js';
export { whereJsonBroke } from './text/json-break.js';
