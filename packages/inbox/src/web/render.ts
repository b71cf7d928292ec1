import type { Approval, Decision, Question, Remember } from '@airlock/sdk';
import { shortened, visibleText } from '@airlock/sdk';
import { act } from './acting.js';
import { approvalsView, unreachableView } from './approvals-view.js';
import { relativeTime } from './clock.js';
import { DIFF_EDITS_MAX, fileChangeOf, lineDiff } from './diff-source.js';
import { type Child, h, onEnter } from './dom.js';
import { callLine, commandsOf, inputFields, parkedByMode, ruleText } from './format.js';
import { hiddenTextWarning } from './hidden-text.js';
import { inputEditor } from './input-editor.js';
import { rememberControls } from './remember.js';
import { tallPromptNote, tallTextNote, textBoxProps } from './tall-text.js';

/** What the buttons of a card do; each resolves when the kernel answered. */
export interface CardActions {
  /** Approves, optionally remembering it or with an edited input (approve with changes). */
  approve(
    decision: Approval,
    options?: { remember?: Remember; toolInput?: unknown },
  ): Promise<void>;
  deny(decision: Approval, reason: string): Promise<void>;
  answer(decision: Question, content: unknown, outcome?: 'failed'): Promise<void>;
}

/** The key a card is known by: `run/task`. */
export function decisionKey(decision: { run_id: string; task_key: string }): string {
  return `${decision.run_id}/${decision.task_key}`;
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
      `run ${decision.run_id} · task ${decision.task_key} · `,
      relativeTime(created, 'ago'),
      decision.deadline_at ? ' · expires ' : '',
      decision.deadline_at ? relativeTime(decision.deadline_at, 'until') : '',
      ' · ',
      h(
        'a',
        {
          href: `#/runs/${encodeURIComponent(decision.run_id)}`,
          'aria-label': `Run story of run ${decision.run_id}`,
        },
        'Run story',
      ),
    ),
  );
}

/** What a screen reader hears for a card: the call, its run and its task. */
export function cardName(decision: Decision): string {
  const what = decision.isAsk()
    ? `Question "${decision.prompt ? shortened(visibleText(decision.prompt, { oneLine: true }), 80) : 'without a prompt'}"`
    : `Approval for ${callLine(decision.tool_name, decision.tool_input, 80)}`;
  return `${what}, run ${decision.run_id}, task ${decision.task_key}`;
}

function inputView(decision: Approval): HTMLElement {
  const input = decision.tool_input;
  const commands = commandsOf(input);
  const shownAsCommand = new Set(commands.map(([key]) => key));
  const fields = inputFields(input).filter(([key]) => !shownAsCommand.has(key));
  const warning = hiddenTextWarning(decision.tool_name, input);
  const shown = commands.map(([key, command]): [string, string] => [key, visibleText(command)]);
  const long = tallTextNote([...shown, ...fields]);
  // A hooked agent's call runs where its shell stands: `cat key` in /repo/secrets is secrets/key.
  const directory = decision.task.working_directory;
  return h(
    'section',
    { class: 'input' },
    warning ? h('p', { class: 'warning', role: 'note' }, warning) : null,
    directory
      ? h(
          'p',
          { class: 'cwd' },
          'Runs in ',
          h('code', {}, visibleText(directory, { oneLine: true })),
        )
      : null,
    long ? h('p', { class: 'warning', role: 'note' }, long) : null,
    commands.length > 1
      ? h(
          'p',
          { class: 'warning', role: 'note' },
          `This call names ${commands.length} commands (${commands.map(([key]) => key).join(', ')}): the tool may run any of them.`,
        )
      : null,
    ...shown.map(([key, command]) =>
      h(
        'pre',
        textBoxProps(key, command, 'command'),
        h('code', {}, `${commands.length > 1 || key !== 'command' ? `${key}: ` : ''}$ ${command}`),
      ),
    ),
    fields.length === 0
      ? null
      : h(
          'dl',
          {},
          ...fields.flatMap(([key, text]) => [
            h('dt', {}, key),
            h('dd', {}, h('pre', textBoxProps(key, text), text)),
          ]),
        ),
  );
}

/** The change a write or edit call proposes, line by line, when its input says enough. */
function diffView(decision: Approval): HTMLElement | null {
  const change = fileChangeOf(decision.tool_name, decision.tool_input);
  if (change === null) return null;
  const mark = { added: '+', removed: '-', kept: ' ' } as const;
  const words = { added: 'added', removed: 'removed', kept: 'kept' } as const;
  // Model text: a bidi control or a run of blanks shows as a mark, here as in the input's fields.
  const path = visibleText(change.path, { oneLine: true });
  const { lines, compared } = lineDiff(change);
  return h(
    'section',
    { class: 'diff', 'aria-label': `change to ${path}` },
    h('h3', {}, 'Change to ', h('code', {}, path)),
    compared
      ? null
      : h(
          'p',
          { class: 'warning', role: 'note' },
          `More than ${DIFF_EDITS_MAX} lines are added or removed, too many to compare line by line: every line before is shown removed, and every line after added.`,
        ),
    h(
      'pre',
      // Focusable: a line wider than the card scrolls in this box, by keyboard too.
      { class: 'diff-lines', tabindex: 0 },
      ...lines.map((line) =>
        h(
          'span',
          { class: `diff-${line.kind}`, title: words[line.kind] },
          `${mark[line.kind]} ${visibleText(line.text)}\n`,
        ),
      ),
    ),
  );
}

function profileView(decision: Approval): HTMLElement | null {
  const profile = decision.effect_profile;
  if (!profile) return null;
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
          ...profile.targets.map((target) => h('code', {}, visibleText(target, { oneLine: true }))),
        )
      : null,
    h('p', { class: 'why' }, `Mode ${profile.mode ?? '?'} · origin ${profile.origin ?? '?'}`),
    layerWhy(decision),
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

/** The layer that parked the call, when another layer than the declared rules did (specs 003/004). */
function layerWhy(decision: Approval): HTMLElement | null {
  const profile = decision.task.effect_profile;
  const layer = profile?.decided_by_layer;
  if (layer === undefined || layer === 'approval_rules') return null;
  const said = profile?.layers?.find((entry) => entry.layer === layer);
  const rule = said?.rule;
  const where = rule?.rule_set
    ? ` rule set ${rule.rule_set.id}${rule.scope ? ` (${rule.scope})` : ''}`
    : rule?.list
      ? ` ${rule.list}`
      : '';
  const which = rule?.text ? `: ${rule.text}` : rule?.index != null ? `: rule #${rule.index}` : '';
  const detail = said?.detail ? ` — ${said.detail}` : '';
  // The layer's words quote the call (the tool's name a model wrote): hidden characters as marks.
  return h(
    'p',
    { class: 'why-layer' },
    visibleText(`Parked by the ${layer.replace('_', ' ')} layer,${where}${which}${detail}`, {
      oneLine: true,
    }),
  );
}

function approvalCard(decision: Approval, actions: CardActions): HTMLElement {
  const call = `${callLine(decision.tool_name, decision.tool_input, 80)} (run ${decision.run_id}, task ${decision.task_key})`;
  const reason = h('input', {
    type: 'text',
    name: 'reason',
    placeholder: 'Reason the model reads (optional)',
    'aria-label': `deny reason for ${call}`,
  });
  const deny = () => act(card, () => actions.deny(decision, reason.value));
  onEnter(reason, deny);
  // Only a tool call's input can be edited (a hook row's cannot).
  const editor =
    decision.task.kind === 'tool'
      ? inputEditor({
          original: decision.tool_input,
          call,
          id: decisionKey(decision),
          approve: (toolInput) => act(card, () => actions.approve(decision, { toolInput })),
        })
      : null;
  const card: HTMLElement = h(
    'article',
    { class: 'card', 'data-decision': decisionKey(decision), 'aria-label': cardName(decision) },
    header(decision, visibleText(decision.tool_name, { oneLine: true }), 'needs approval'),
    diffView(decision),
    inputView(decision),
    profileView(decision),
    approvalsView(decision),
    unreachableView(decision),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          class: 'approve',
          'data-action': 'approve',
          'aria-label': `Approve ${call}`,
          onclick: () => act(card, () => actions.approve(decision)),
        },
        'Approve',
      ),
      reason,
      h(
        'button',
        { class: 'deny', 'data-action': 'deny', 'aria-label': `Deny ${call}`, onclick: deny },
        'Deny',
      ),
      editor?.button,
    ),
    editor?.element,
    rememberControls(decision, (remember) =>
      act(card, () => actions.approve(decision, { remember })),
    ),
    h('p', { class: 'message', role: 'status' }),
  );
  return card;
}

/** The options of a question as its only input: radio buttons, or checkboxes for `multi`. */
function optionsInput(decision: Question, name: string): { group: HTMLElement; chosen(): unknown } {
  const inputs = decision.options.map((option) =>
    h('input', { type: decision.multi ? 'checkbox' : 'radio', name, value: option }),
  );
  const group = h(
    'fieldset',
    { class: 'options' },
    h('legend', {}, decision.multi ? 'Choose one or more' : 'Choose one'),
    // The label shows the option's hidden characters as marks; the answer is the option as sent.
    ...decision.options.map((option, i) =>
      h('label', {}, inputs[i]!, ` ${visibleText(option, { oneLine: true })}`),
    ),
  );
  const chosen = () => {
    const picked = inputs.filter((input) => input.checked).map((input) => input.value);
    return decision.multi ? picked : (picked[0] ?? null);
  };
  return { group, chosen };
}

/**
 * A question's header and, when its prompt is tall (a model's page of text),
 * the whole prompt in a box that scrolls under a note of its length and end,
 * with the heading a one-line cut of it: Answer stays near the card's top.
 */
function promptView(decision: Question): HTMLElement[] {
  const prompt = visibleText(decision.prompt || 'A question');
  const note = tallPromptNote(prompt);
  if (note === null) return [header(decision, prompt, 'question')];
  const title = shortened(visibleText(decision.prompt, { oneLine: true }), 100);
  return [
    header(decision, title, 'question'),
    h(
      'section',
      { class: 'prompt' },
      h('p', { class: 'warning', role: 'note' }, note),
      h('pre', textBoxProps('the question', prompt), prompt),
    ),
  ];
}

function questionCard(decision: Question, actions: CardActions): HTMLElement {
  const about = `the question of run ${decision.run_id}, task ${decision.task_key}`;
  const message = h('p', { class: 'message', role: 'status' });
  let answerInput: Child;
  let send: () => void;
  if (decision.options.length > 0) {
    const { group, chosen } = optionsInput(decision, `answer-${decisionKey(decision)}`);
    answerInput = group;
    send = () => {
      const content = chosen();
      if (content === null || (Array.isArray(content) && content.length === 0)) {
        message.textContent = 'Choose an answer first.';
        return;
      }
      act(card, () => actions.answer(decision, content));
    };
    for (const input of group.querySelectorAll('input')) {
      input.addEventListener('keydown', (event) => {
        if (event.key === 'Enter') {
          event.preventDefault();
          send();
        }
      });
    }
  } else {
    const text = h('input', {
      type: 'text',
      name: 'answer',
      placeholder: 'Your answer',
      'aria-label': `answer to ${about}`,
    });
    answerInput = text;
    send = () => {
      // An empty answer is never sent by a slip of Enter: declining is a button of its own.
      if (text.value.trim() === '') {
        message.textContent = 'Type an answer first, or Decline the question.';
        return;
      }
      act(card, () => actions.answer(decision, text.value));
    };
    onEnter(text, send);
  }
  const card: HTMLElement = h(
    'article',
    { class: 'card', 'data-decision': decisionKey(decision), 'aria-label': cardName(decision) },
    ...promptView(decision),
    h(
      'div',
      { class: 'actions' },
      answerInput,
      h(
        'button',
        { 'data-action': 'answer', 'aria-label': `Answer ${about}`, onclick: () => send() },
        'Answer',
      ),
      h(
        'button',
        {
          class: 'deny',
          'data-action': 'decline',
          'aria-label': `Decline ${about}`,
          onclick: () => act(card, () => actions.answer(decision, null, 'failed')),
        },
        'Decline',
      ),
    ),
    message,
  );
  return card;
}

/** The card of one decision, with the buttons that end it. */
export function decisionCard(decision: Decision, actions: CardActions): HTMLElement {
  return decision.isAsk() ? questionCard(decision, actions) : approvalCard(decision, actions);
}
