import type { RunView, TaskView } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { HEADLINE_MAX, headline, type NotificationPayload } from './payload.js';

/** A notice of one row whose tool name (and question) is `text`. */
function notice(type: NotificationPayload['type'], eventType: string, text: string) {
  return {
    type,
    timestamp: new Date(0).toISOString(),
    data: {
      workspace_id: 'ws_1',
      event: { type: eventType, data: {}, principal: null },
      run: { id: 'run_1' } as RunView,
      task: { tool_name: text, prompt: text } as TaskView,
      card_url: null,
    },
  } satisfies NotificationPayload;
}

const KINDS: [NotificationPayload['type'], string][] = [
  ['airlock.task.parked', 'task.parked'],
  ['airlock.task.parked', 'task.edited'],
  ['airlock.task.parked', 'task.retried'],
  ['airlock.task.parked', 'task.readdressed'],
  ['airlock.task.expired', 'task.expired'],
  ['airlock.task.asked', 'task.asked'],
];

describe("a notice's headline (a Slack header takes 150 characters)", () => {
  it.each(KINDS)(
    '%s after %s stays within 150 characters with the end of a long name kept',
    (type, event) => {
      const name = `${'deploy_'.repeat(16)}then_rm_rf`;
      const line = headline(notice(type, event, name));
      expect(line.length).toBeLessThanOrEqual(HEADLINE_MAX);
      expect(line.endsWith('then_rm_rf')).toBe(true);
    },
  );

  it.each(KINDS)(
    '%s after %s stays within 150 characters when hidden characters turn into marks',
    (type, event) => {
      const line = headline(notice(type, event, `a${'\u202e'.repeat(60)}b`));
      expect(line.length).toBeLessThanOrEqual(HEADLINE_MAX);
      expect(line).toContain('⟨U+202E⟩');
      expect(line).not.toMatch(/\u202e/);
    },
  );
});
