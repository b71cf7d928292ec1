import type { Approval, Remember } from '@airlock/sdk';
import { h } from './dom.js';
import { callLine } from './format.js';

/** The scopes an approval can be remembered in, and how a person reads them. */
const SCOPES: { scope: Remember['scope']; words: string }[] = [
  { scope: 'conversation', words: 'in this conversation' },
  { scope: 'project', words: 'for this agent application (project)' },
  { scope: 'user', words: 'for you, in every run you start' },
];

/**
 * The permission rule set captured on a parked row when its call was
 * evaluated (spec 003), or null when no rule set took part: only then can an
 * approval be remembered.
 */
export function capturedRuleSet(decision: unknown): string | null {
  const layers = (decision as { layers?: unknown } | null)?.layers;
  if (!Array.isArray(layers)) return null;
  for (const layer of layers as { layer?: unknown; rule?: { rule_set?: { id?: unknown } } }[]) {
    const id = layer.layer === 'rule_set' ? layer.rule?.rule_set?.id : undefined;
    if (typeof id === 'string') return id;
  }
  return null;
}

/** The rule an approval would save, in words. */
export function rememberWords(
  decision: Approval,
  ruleSet: string,
  scope: Remember['scope'],
): string {
  const where = SCOPES.find((entry) => entry.scope === scope)?.words ?? scope;
  return `Saves an allow rule for exactly this call (${callLine(decision.tool_name, decision.tool_input, 60)}) in rule set ${ruleSet}, ${where}.`;
}

/**
 * "Approve and remember" for a card whose call a rule set evaluated: a scope
 * picker, the rule it would save in words, and the button. Null when the row
 * has no captured rule set.
 */
export function rememberControls(
  decision: Approval,
  approve: (remember: Remember) => void,
): HTMLElement | null {
  const ruleSet = capturedRuleSet(decision.task.decision);
  if (ruleSet === null) return null;
  const scope = h(
    'select',
    { name: 'remember-scope', 'aria-label': 'where to remember the approval' },
    ...SCOPES.map((entry) => h('option', { value: entry.scope }, entry.words)),
  );
  const words = h(
    'p',
    { class: 'remember-rule' },
    rememberWords(decision, ruleSet, 'conversation'),
  );
  scope.addEventListener('change', () => {
    words.textContent = rememberWords(decision, ruleSet, scope.value as Remember['scope']);
  });
  return h(
    'div',
    { class: 'remember' },
    h(
      'button',
      {
        class: 'approve-remember',
        'data-action': 'approve-remember',
        'aria-label': `Approve and remember ${callLine(decision.tool_name, decision.tool_input, 80)} (run ${decision.run_id}, task ${decision.task_key})`,
        onclick: () => approve({ scope: scope.value as Remember['scope'] }),
      },
      'Approve and remember',
    ),
    scope,
    words,
  );
}
