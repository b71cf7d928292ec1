import { claudeShaped } from './claude-shaped.js';

/**
 * Codex CLI 0.169: command hooks in Claude Code's shape (its shell tool is
 * reported as `Bash`, patches as `apply_patch`). Its `ask` and any answer it
 * does not know let the call run, so Airlock never answers it `ask`: a call
 * that needs a person waits for one in Airlock.
 */
export const codex = claudeShaped('codex', {
  updatesInput: false,
  nativeAsk: false,
  canDefer: false,
  hookEvents: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'Stop',
    'PreCompact',
  ],
});
