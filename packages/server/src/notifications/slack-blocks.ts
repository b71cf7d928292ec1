import type { TaskView } from '@airlock/core';
import { headline, type NotificationPayload } from './payload.js';
import { shownWithin } from './shown-text.js';

/**
 * Slack Block Kit messages for a notice: the call, its effect profile and,
 * for a parked call, Approve / Deny buttons whose value binds the press to
 * the row version that was shown.
 */

/** What a button carries back in the interaction: the row, its version and the delivery. */
export interface ButtonValue {
  workspace_id: string;
  run_id: string;
  task_key: string;
  version: string;
  delivery_id: string;
}

/** The action ids of the two buttons. */
export const APPROVE_ACTION = 'airlock_approve';
/** The action id of the Deny button. */
export const DENY_ACTION = 'airlock_deny';

type Block = Record<string, unknown>;

/** Keeps a plain text within `max` characters. */
function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** Escapes the three characters Slack's mrkdwn treats as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Runs of three backticks or more, which would close the code block quoting an input. */
const FENCE = /`{3,}/g;

/**
 * Escapes a text for inside a code block: mrkdwn's three control characters, and each run
 * of backticks that would end the block (and show what follows as the notice's own text) as
 * a mark, as visibleText shows a run of blanks.
 */
function escapeCode(text: string): string {
  return escapeMrkdwn(text).replace(FENCE, (run) => `⟨${run.length} backticks⟩`);
}

function callText(task: TaskView): string {
  const input = JSON.stringify(task.tool_input, null, 2) ?? 'null';
  const name = shownWithin(task.tool_name, 150, { oneLine: true, escape: escapeMrkdwn });
  // 3000 characters a text object: the name, the input and the fence fit in it.
  return `*${name}*\n\`\`\`${shownWithin(input, 2800, { escape: escapeCode })}\`\`\``;
}

function profileFields(task: TaskView): Block[] {
  const profile = task.effect_profile;
  if (!profile) return [];
  const tags = profile.action_tags.length > 0 ? profile.action_tags.join(', ') : 'none';
  const targets = profile.targets.length > 0 ? profile.targets.join(', ') : 'none';
  const rules = profile.matched_rules.map((rule) => `${rule.verdict} #${rule.index}`).join(', ');
  return [
    {
      type: 'section',
      fields: [
        // 2000 characters a field.
        {
          type: 'mrkdwn',
          text: `*Action tags*\n${shownWithin(tags, 1900, { escape: escapeMrkdwn })}`,
        },
        // Targets are read from the model's command: shown like it.
        {
          type: 'mrkdwn',
          text: `*Targets*\n${shownWithin(targets, 1900, { escape: escapeMrkdwn })}`,
        },
        { type: 'mrkdwn', text: `*Mode*\n${profile.mode}` },
        { type: 'mrkdwn', text: `*Matched rules*\n${clip(rules || 'none', 1900)}` },
      ],
    },
  ];
}

/** The message posted for a notice (blocks, and the plain text Slack shows in notifications). */
export function noticeMessage(
  deliveryId: string,
  payload: NotificationPayload,
): { text: string; blocks: Block[] } {
  // The headline is plain text in the header; the notification text is mrkdwn, so escaped.
  const line = headline(payload);
  const text = escapeMrkdwn(line);
  // Within Slack's 150 characters of a header already (HEADLINE_MAX).
  const blocks: Block[] = [{ type: 'header', text: { type: 'plain_text', text: line } }];
  const task = payload.data.task;
  if (task) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: callText(task) } });
    blocks.push(...profileFields(task));
  }
  const context = [`run ${payload.data.run.id}`, task ? `row ${task.key}` : null]
    .filter(Boolean)
    .join(' · ');
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(context) }] });
  const elements: Block[] = [];
  if (payload.type === 'airlock.task.parked' && task) {
    const value: ButtonValue = {
      workspace_id: payload.data.workspace_id,
      run_id: task.run_id,
      task_key: task.key,
      version: task.version,
      delivery_id: deliveryId,
    };
    const encoded = JSON.stringify(value);
    elements.push(
      {
        type: 'button',
        action_id: APPROVE_ACTION,
        style: 'primary',
        text: { type: 'plain_text', text: 'Approve' },
        value: encoded,
      },
      {
        type: 'button',
        action_id: DENY_ACTION,
        style: 'danger',
        text: { type: 'plain_text', text: 'Deny' },
        value: encoded,
      },
    );
  }
  if (payload.data.card_url) {
    elements.push({
      type: 'button',
      action_id: 'airlock_open',
      text: { type: 'plain_text', text: 'Open in the inbox' },
      url: payload.data.card_url,
    });
  }
  if (elements.length > 0) blocks.push({ type: 'actions', elements });
  return { text, blocks };
}

/** The block_id of the line that counts a call's approvals while it waits for more. */
const PROGRESS_BLOCK = 'airlock_progress';

/** The message once decided: the call as it was, and who decided instead of the buttons. */
export function decidedMessage(
  original: { text: string; blocks: Block[] },
  outcome: string,
): { text: string; blocks: Block[] } {
  const blocks = original.blocks.filter(
    (block) => block.type !== 'actions' && block.block_id !== PROGRESS_BLOCK,
  );
  blocks.push({ type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(outcome) } });
  return { text: `${original.text}: ${escapeMrkdwn(outcome)}`, blocks };
}

/**
 * The message while a policy waits for more approvals: the buttons stay for
 * the other approvers, with a line above them counting the approvals so far.
 */
export function progressMessage(
  original: { text: string; blocks: Block[] },
  progress: string,
): { text: string; blocks: Block[] } {
  const blocks = original.blocks.filter((block) => block.block_id !== PROGRESS_BLOCK);
  const actions = blocks.findIndex((block) => block.type === 'actions');
  blocks.splice(actions === -1 ? blocks.length : actions, 0, {
    type: 'context',
    block_id: PROGRESS_BLOCK,
    elements: [{ type: 'mrkdwn', text: escapeMrkdwn(progress) }],
  });
  return { text: original.text, blocks };
}
