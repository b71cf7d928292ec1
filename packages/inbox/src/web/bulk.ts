import { type Decision, isConflictError } from '@airlock/sdk';
import { h } from './dom.js';

/** What the bulk bar needs from the list. */
export interface BulkHost {
  /** The decisions of these keys still on the list. */
  decisions(keys: string[]): Decision[];
  /** One of them was decided here (`done` says how), or elsewhere first (null). */
  settled(decision: Decision, done: string | null): void;
}

const keyOf = (decision: Decision) => `${decision.run_id}/${decision.task_key}`;

/**
 * Approve or deny several selected calls at once. Each is sent with the row
 * version the person saw, so a call that changed since is refused, not decided.
 */
export class BulkBar {
  private readonly ticked = new Set<string>();
  private readonly label = h('span', { class: 'bulk-count' }, '');
  private readonly reason = h('input', {
    type: 'text',
    name: 'bulk-reason',
    'aria-label': 'Reason for denying the selected calls',
    placeholder: 'Deny reason (optional)',
  });
  private readonly message = h('p', { class: 'bulk-message', role: 'status' });
  private readonly buttons = [
    h(
      'button',
      { type: 'button', class: 'approve', onclick: () => void this.run('approve') },
      'Approve selected',
    ),
    h(
      'button',
      { type: 'button', class: 'deny', onclick: () => void this.run('deny') },
      'Deny selected',
    ),
    h('button', { type: 'button', onclick: () => this.clear() }, 'Clear selection'),
  ];
  /** The bar's element: hidden while nothing is selected. */
  readonly element = h(
    'div',
    { class: 'bulk', role: 'group', 'aria-label': 'selected decisions', hidden: true },
    this.label,
    ...this.buttons.slice(0, 1),
    this.reason,
    ...this.buttons.slice(1),
    this.message,
  );

  constructor(private readonly host: BulkHost) {}

  /** True when this key is selected. */
  has(key: string): boolean {
    return this.ticked.has(key);
  }

  /** Selects or unselects one key. */
  set(key: string, on: boolean): void {
    if (on) this.ticked.add(key);
    else this.ticked.delete(key);
    this.show();
  }

  /** Flips one key and its row's tick box. */
  toggle(key: string, row: HTMLElement | null): void {
    const tick = row?.querySelector('.tick') as HTMLInputElement | null;
    const on = !this.ticked.has(key);
    if (tick) tick.checked = on;
    this.set(key, on);
  }

  private clear(): void {
    for (const tick of document.querySelectorAll<HTMLInputElement>('.row .tick:checked')) {
      tick.checked = false;
    }
    this.ticked.clear();
    this.show();
  }

  private show(): void {
    this.element.hidden = this.ticked.size === 0 && !this.message.textContent;
    this.label.textContent = `${this.ticked.size} selected`;
  }

  private async run(verb: 'approve' | 'deny'): Promise<void> {
    const decisions = this.host.decisions([...this.ticked]);
    for (const button of this.buttons) button.disabled = true;
    const reason = this.reason.value.trim();
    let done = 0;
    let elsewhere = 0;
    const refused: string[] = [];
    await Promise.all(
      decisions.map(async (decision) => {
        const version = decision.task.version;
        try {
          if (decision.isAsk()) {
            refused.push(`${keyOf(decision)}: a question takes an answer`);
            return;
          }
          if (verb === 'approve') await decision.approve({ version });
          else await decision.deny({ version, ...(reason ? { reason } : {}) });
          done += 1;
          this.host.settled(
            decision,
            verb === 'approve'
              ? 'Approved by you; running.'
              : 'Denied by you; the model reads why.',
          );
        } catch (error) {
          if (isConflictError(error) && error.code !== 'version_mismatch') {
            elsewhere += 1;
            this.host.settled(decision, null);
          } else
            refused.push(`${keyOf(decision)}: ${(error as { detail?: string }).detail ?? error}`);
        }
      }),
    );
    for (const button of this.buttons) button.disabled = false;
    const words = verb === 'approve' ? 'approved' : 'denied';
    this.message.textContent = [
      `${done} ${words}`,
      elsewhere ? `${elsewhere} decided elsewhere first` : '',
      refused.length ? `${refused.length} refused (${refused.join('; ')})` : '',
    ]
      .filter(Boolean)
      .join(', ');
    this.show();
  }
}
