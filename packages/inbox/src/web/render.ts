import type { Approval, Decision, Question } from '@airlock/sdk';
import { type Child, h } from './dom.js';
import { ago, commandOf, inputFields, parkedByMode, ruleText, until } from './format.js';

/** What the buttons of a card do; each resolves when the kernel answered. */
export interface CardActions {
  approve(decision: Approval): Promise<void>;
  deny(decision: Approval, reason: string): Promise<void>;
  answer(decision: Question, content: unknown, outcome?: 'failed'): Promise<void>;
}

/** The key a card is known by: `run/task`. */
export function decisionKey(decision: { run_id: string; task_key: string }): string {
  return `${decision.run_id}/${decision.task_key}`;
}

/**
 * Runs an action from a card: its buttons are disabled meanwhile, and a
 * failure is shown in the card's message line.
 */
function act(card: HTMLElement, work: () => Promise<void>): void {
  const buttons = [...card.querySelectorAll('button, input, textarea')] as HTMLButtonElement[];
  const message = card.querySelector('.message') as HTMLElement;
  for (const button of buttons) button.disabled = true;
  message.textContent = '';
  work().catch((error: unknown) => {
    for (const button of buttons) button.disabled = false;
    message.textContent = (error as { detail?: string }).detail ?? String(error);
  });
}

function header(decision: Decision, title: string, badge: string): HTMLElement {
  const created = decision.task.created_at;
  return h(
    'header',
    {},
    h('span', { class: `badge ${decision.kind}` }, badge),
    h('h2', {}, title),
    h(
      'p',
      { class: 'meta' },
      `run ${decision.run_id} · task ${decision.task_key} · ${ago(created)}`,
      decision.deadline_at ? ` · expires ${until(decision.deadline_at)}` : '',
    ),
  );
}

function inputView(input: unknown): HTMLElement {
  const command = commandOf(input);
  const fields = inputFields(input).filter(
    ([key]) => command === null || !['command', 'cmd', 'script'].includes(key),
  );
  return h(
    'section',
    { class: 'input' },
    command === null ? null : h('pre', { class: 'command' }, h('code', {}, `$ ${command}`)),
    fields.length === 0
      ? null
      : h(
          'dl',
          {},
          ...fields.flatMap(([key, text]) => [h('dt', {}, key), h('dd', {}, h('pre', {}, text))]),
        ),
  );
}

function profileView(decision: Approval): HTMLElement {
  const profile = decision.effect_profile;
  const tags: Child[] = profile.action_tags.length
    ? profile.action_tags.map((tag) => h('li', { class: `tag tag-${tag}` }, tag))
    : [h('li', { class: 'tag tag-none' }, 'no action tags')];
  return h(
    'section',
    { class: 'profile' },
    h('h3', {}, 'Effect profile'),
    h('ul', { class: 'tags', 'aria-label': 'action tags' }, ...tags),
    profile.targets.length
      ? h(
          'p',
          { class: 'targets' },
          'Targets: ',
          ...profile.targets.map((target) => h('code', {}, target)),
        )
      : null,
    h('p', { class: 'why' }, `Mode ${profile.mode ?? '?'} · origin ${profile.origin ?? '?'}`),
    profile.matched_rules.length
      ? h(
          'div',
          { class: 'why-rules' },
          'Parked by:',
          h(
            'ul',
            { class: 'rules', 'aria-label': 'rules that parked it' },
            ...profile.matched_rules.map((rule) => h('li', {}, h('code', {}, ruleText(rule)))),
          ),
        )
      : h('p', { class: 'rules' }, parkedByMode(profile.mode)),
  );
}

function approvalCard(decision: Approval, actions: CardActions): HTMLElement {
  const reason = h('input', {
    type: 'text',
    name: 'reason',
    placeholder: 'Reason the model reads (optional)',
    'aria-label': 'deny reason',
  });
  const card: HTMLElement = h(
    'article',
    { class: 'card', 'data-decision': decisionKey(decision) },
    header(decision, decision.tool_name, 'needs approval'),
    inputView(decision.tool_input),
    profileView(decision),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          class: 'approve',
          'data-action': 'approve',
          onclick: () => act(card, () => actions.approve(decision)),
        },
        'Approve',
      ),
      reason,
      h(
        'button',
        {
          class: 'deny',
          'data-action': 'deny',
          onclick: () => act(card, () => actions.deny(decision, reason.value)),
        },
        'Deny',
      ),
    ),
    h('p', { class: 'message', role: 'status' }),
  );
  return card;
}

function questionCard(decision: Question, actions: CardActions): HTMLElement {
  const text = h('input', {
    type: 'text',
    name: 'answer',
    placeholder: 'Your answer',
    'aria-label': 'answer',
  });
  const picks = decision.options.map((option) =>
    h('input', { type: 'checkbox', value: option, 'aria-label': option }),
  );
  const options: Child = decision.multi
    ? h(
        'div',
        { class: 'options' },
        ...decision.options.map((option, i) => h('label', {}, picks[i]!, option)),
        h(
          'button',
          {
            'data-action': 'answer-options',
            onclick: () =>
              act(card, () =>
                actions.answer(
                  decision,
                  picks.filter((pick) => pick.checked).map((pick) => pick.value),
                ),
              ),
          },
          'Answer',
        ),
      )
    : h(
        'div',
        { class: 'options' },
        ...decision.options.map((option) =>
          h(
            'button',
            {
              class: 'option',
              'data-action': 'answer-option',
              onclick: () => act(card, () => actions.answer(decision, option)),
            },
            option,
          ),
        ),
      );
  const card: HTMLElement = h(
    'article',
    { class: 'card', 'data-decision': decisionKey(decision) },
    header(decision, decision.prompt || 'A question', 'question'),
    decision.options.length ? options : null,
    h(
      'div',
      { class: 'actions' },
      text,
      h(
        'button',
        {
          'data-action': 'answer-text',
          onclick: () => act(card, () => actions.answer(decision, text.value)),
        },
        'Send',
      ),
      h(
        'button',
        {
          class: 'deny',
          'data-action': 'decline',
          onclick: () => act(card, () => actions.answer(decision, null, 'failed')),
        },
        'Decline',
      ),
    ),
    h('p', { class: 'message', role: 'status' }),
  );
  return card;
}

/** The card of one decision, with the buttons that end it. */
export function decisionCard(decision: Decision, actions: CardActions): HTMLElement {
  return decision.isAsk() ? questionCard(decision, actions) : approvalCard(decision, actions);
}
