import type { RunView, TaskView } from '@airlock/core';
import type { NotifyingEvent } from './config.js';
import { shownWithin } from './shown-text.js';

/**
 * The notice every channel is built from, and the body a webhook receives
 * (Standard Webhooks' `{type, timestamp, data}` envelope). `run` and `task`
 * are the protocol's view types from @airlock/core, as the API shows them.
 */
export interface NotificationPayload {
  /** `airlock.` and the notifying event, e.g. `airlock.task.parked`. */
  type: `airlock.${NotifyingEvent}`;
  /** When the event happened (ISO 8601). */
  timestamp: string;
  data: {
    workspace_id: string;
    /** The event as the log records it: what happened, its data and who caused it. */
    event: { type: string; data: Record<string, unknown>; principal: string | null };
    run: RunView;
    /** The row that needs a person; null for a run-level event. */
    task: TaskView | null;
    /** The run's story in the web inbox, where the row's card is. */
    card_url: string | null;
  };
}

/** Listen addresses that mean "every interface": a link naming one reaches nobody elsewhere. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0', '']);

/**
 * The base of the links notices carry when the configuration names no `public_url`: the
 * kernel's own address, unless it listens on every interface (then no base: a mail's approve
 * link or a card link to `http://0.0.0.0:4820` would reach nobody, so none is sent).
 */
export function defaultPublicUrl(listenUrl: string, host: string): string | undefined {
  return WILDCARD_HOSTS.has(host.trim()) ? undefined : listenUrl;
}

/** The inbox link of a run's story (the card of its waiting row is there). */
export function cardUrl(publicUrl: string | undefined, runId: string): string | null {
  if (!publicUrl) return null;
  return `${publicUrl.replace(/\/+$/, '')}/#/runs/${encodeURIComponent(runId)}`;
}

/** The most characters of a model's text (a tool name, a question) a headline holds. */
const HEADLINE_TEXT = 120;

/** The most characters of a whole headline: what a Slack header takes (150). */
export const HEADLINE_MAX = 150;

/**
 * How a park notice begins when the call waits again (routing.ts): a person who saw the
 * first notice can tell the new one from a duplicate.
 */
const PARKED_AGAIN: Record<string, string> = {
  'task.edited': 'Approval needed for the edited call',
  'task.retried': 'Approval needed again',
  'task.readdressed': 'Approval needed again',
};

/**
 * One line saying what a notice asks of a person (a Slack header, a mail's subject), at most
 * {@link HEADLINE_MAX} characters. The tool name and the question are the model's: shown on
 * one line with their hidden characters as marks, cut short with their end kept to what the
 * line's own words leave (at most 120 characters).
 */
export function headline(payload: NotificationPayload): string {
  const task = payload.data.task;
  const model = (prefix: string, text: string) => {
    const budget = Math.min(HEADLINE_TEXT, HEADLINE_MAX - prefix.length);
    return `${prefix}${shownWithin(text, budget, { oneLine: true })}`;
  };
  const tool = (prefix: string) => (task ? model(prefix, task.tool_name) : `${prefix}a call`);
  switch (payload.type) {
    case 'airlock.task.parked':
      return tool(`${PARKED_AGAIN[payload.data.event.type] ?? 'Approval needed'}: `);
    case 'airlock.task.asked':
      return model('Question waiting: ', task?.prompt ?? '').trim();
    case 'airlock.task.expired':
      return tool('Expired without a decision: ');
    case 'airlock.run.held':
      return `Run ${payload.data.run.id} holds on a failed row: retry or abandon it`;
    case 'airlock.run.failed':
      return `Run ${payload.data.run.id} failed`;
  }
}
