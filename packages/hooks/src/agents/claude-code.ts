import { claudeShaped } from './claude-shaped.js';

/**
 * Claude Code 2.1.x: command and HTTP hooks in `.claude/settings.json`;
 * `permissionDecision` allow / deny / ask / defer (`defer` pauses a headless
 * `-p` run with `stop_reason: "tool_deferred"`, resumed by `--resume`).
 */
export const claudeCode = claudeShaped('claude-code', {
  updatesInput: true,
  nativeAsk: true,
  canDefer: true,
  hookEvents: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'Stop',
    'PreCompact',
  ],
});
