import { isWaiting } from '../kernel/machines/task-machine.js';
import { runView, taskView } from '../kernel/views.js';
import { enqueueDeliveries, type NewDelivery } from '../store/notifications.js';
import { peekRun } from '../store/runs.js';
import type { PendingEvent, Tx } from '../store/store.js';
import { findTask } from '../store/tasks.js';
import type { NotificationsConfig } from './config.js';
import { pointingAtNotices, settlesFor } from './message-settle.js';
import { cardUrl, type NotificationPayload } from './payload.js';
import { asksAPerson, channelWants, notifyingEventOf } from './routing.js';

/**
 * The outbox's enqueue, run at the end of every unit of work that emitted
 * events (Store.onUnitEvents), inside its transaction: one delivery per
 * subscribed channel for each event that needs a person, and a settle for each
 * Slack notice of a call whose wait ended (message-settle.ts). The notice
 * commits with its event or not at all.
 */
export function outboxEnqueue(
  config: NotificationsConfig,
  onEnqueued: () => void,
): (tx: Tx, events: readonly PendingEvent[]) => Promise<void> {
  const workspaces = new Set(config.channels.map((channel) => channel.workspace));
  const slackWorkspaces = new Set(
    config.channels.filter((c) => c.kind === 'slack').map((channel) => channel.workspace),
  );
  return async (tx, events) => {
    const settles = slackWorkspaces.size > 0 ? await settlesFor(tx, events, slackWorkspaces) : [];
    const notices: NewDelivery[] = [];
    for (const event of events) {
      if (!workspaces.has(event.workspace_id)) continue;
      const kind = notifyingEventOf(event);
      if (kind === null) continue;
      const run = await peekRun(tx, event.run_id);
      if (!run) continue;
      const row = event.task_key ? await findTask(tx, event.run_id, event.task_key) : undefined;
      // A park the same unit already decided (an edit approved at once) asks nobody anything.
      if (asksAPerson(kind) && row && !isWaiting(row.state)) continue;
      const task = row ? taskView(row) : null;
      const view = runView(run);
      const subject = {
        event: kind,
        application: run.agent_application_id,
        // The resolved name as well as the model's: an alias must not take a call off a channel.
        tools: row ? [row.tool_name, row.resolved_tool_name] : [],
        actionTags: task?.effect_profile?.action_tags ?? [],
        ruleSet: view.permission_rule_set,
      };
      const payload: NotificationPayload = {
        type: `airlock.${kind}`,
        timestamp: new Date(tx.now).toISOString(),
        data: {
          workspace_id: event.workspace_id,
          event: { type: event.type, data: event.data ?? {}, principal: event.principal ?? null },
          run: view,
          task,
          card_url: cardUrl(config.publicUrl, run.id),
        },
      };
      for (const channel of config.channels) {
        if (channel.workspace !== event.workspace_id || !channelWants(channel, subject)) continue;
        notices.push({
          workspace_id: event.workspace_id,
          run_id: event.run_id,
          task_key: event.task_key ?? null,
          event_type: kind,
          channel: channel.name,
          channel_kind: channel.kind,
          payload,
        });
      }
    }
    const deliveries = [...pointingAtNotices(settles, notices), ...notices];
    if (deliveries.length === 0) return;
    await enqueueDeliveries(tx, deliveries);
    tx.afterCommit(onEnqueued);
  };
}
