// The parser lives in @airlock/core, so `airlock executor|gateway mcp` (in @airlock/mcp) reads durations as these commands do.
export { type DurationBounds, formatDuration, parseDuration } from '@airlock/core';
