import type { PendingEvent } from '../store/store.js';
import type { ChannelConfig, NotifyingEvent } from './config.js';

/**
 * Which event needs a person, and which channels hear of it: the routing of
 * issue 27, pure so that every rule of it is tested without a kernel.
 */

/** Whether a notice asks a person something (a park, a question): its Slack message has buttons. */
export function asksAPerson(kind: string): boolean {
  return kind === 'task.parked' || kind === 'task.asked';
}

/**
 * The notifying event an event of the log is, or null when nobody need hear of it. A call
 * that waits for people again at a new version (an edit that still parks, an expired or
 * denied park retried, a park readdressed) notifies as `task.parked` again: the buttons and
 * links already sent are bound to the version they showed, and the call may have changed.
 */
export function notifyingEventOf(event: PendingEvent): NotifyingEvent | null {
  switch (event.type) {
    case 'task.parked':
    case 'task.asked':
    case 'task.expired':
    case 'run.failed':
      return event.type;
    case 'task.edited':
      return event.data?.outcome === 'parked' ? 'task.parked' : null;
    case 'task.retried':
      if (event.data?.state === 'needs_approval') return 'task.parked';
      return event.data?.state === 'awaiting_input' ? 'task.asked' : null;
    case 'task.readdressed':
      return event.data?.state === 'needs_approval' ? 'task.parked' : null;
    case 'run.attention_required':
      // A row holding its run (on_failure hold, a hook included) waits for a person to retry it.
      return event.data?.reason === 'failure_hold' ? 'run.held' : null;
    default:
      return null;
  }
}

/** What a channel's `when` is matched against. */
export interface RoutedSubject {
  event: NotifyingEvent;
  application: string | null;
  /** The call's tool names: the model's and, when an alias resolved it, the resolved one. */
  tools: readonly (string | null)[];
  actionTags: readonly string[];
  ruleSet: string | null;
}

function anyOf(
  wanted: readonly string[] | undefined,
  present: readonly (string | null)[],
): boolean {
  if (wanted === undefined) return true;
  return present.some((value) => value !== null && wanted.includes(value));
}

/**
 * True when a channel subscribes to the subject: every key of its `when`
 * must match (one listed value is enough within a key); no `when`, every event.
 */
export function channelWants(channel: ChannelConfig, subject: RoutedSubject): boolean {
  const when = channel.when;
  if (!when) return true;
  return (
    anyOf(when.events, [subject.event]) &&
    anyOf(when.applications, [subject.application]) &&
    anyOf(when.tools, subject.tools) &&
    anyOf(when.action_tags, subject.actionTags) &&
    anyOf(when.rule_sets, [subject.ruleSet])
  );
}
