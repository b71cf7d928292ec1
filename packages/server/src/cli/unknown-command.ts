/*
 * What `airlock <word>` says of a word that names no command lives in
 * `@airlock/core/command-line` (unknownCommandLine, unknownVerbLine,
 * mayBeSecret), shared with `airlock hooks`; re-exported here for the
 * server CLI's own callers.
 */
export { mayBeSecret, unknownCommandLine } from '@airlock/core/command-line';
