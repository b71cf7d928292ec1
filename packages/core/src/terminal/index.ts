/** What the command lines of Airlock's CLIs share, re-exported by the package's index. */
export { type DurationBounds, formatDuration, parseDuration } from './durations.js';
export {
  DEFAULT_KERNEL_URL,
  type KernelUrl,
  readKernelUrl,
  shownKernelUrl,
} from './kernel-url.js';
export { isLoopbackHost } from './loopback.js';
export {
  elapsedSince,
  type ProgressLine,
  type ProgressStream,
  progressAllowed,
  progressLine,
  type StageTicker,
  stageTicker,
} from './progress.js';
export {
  DEFAULT_REQUEST_TIMEOUT_MS,
  type RequestTimeout,
  readRequestTimeout,
} from './request-timeout.js';
export { isSettingError, SettingError, type SettingErrorCode } from './setting-error.js';
export { shellQuoted } from './shell-quote.js';
export { mayBeSecret, shownWord, unknownCommandLine, unknownVerbLine } from './shown-word.js';
export { forTerminal, type RefusalText, refusalLines, terminalJson } from './terminal-text.js';
