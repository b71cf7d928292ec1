/** Children an element can take: nodes, text, or nothing. */
export type Child = Node | string | number | null | undefined | false;

/** Attributes and listeners of {@link h}: `on*` keys are listeners, others attributes. */
export type Props = Record<string, string | boolean | number | EventListener | undefined>;

/**
 * Builds an element. Text is always set as text, never parsed as HTML: tool
 * inputs come from a model and must not be able to inject markup.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      element.addEventListener(key.slice(2).toLowerCase(), value);
    } else {
      element.setAttribute(key, value === true ? '' : String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'number' ? String(child) : child);
  }
  return element;
}

/**
 * Text someone else wrote (a member's name, a deny reason, a model's words) set apart for the
 * bidirectional algorithm: right-to-left letters in it cannot pull the punctuation and the
 * words drawn around it out of their order ("denied by NAME: REASON" shows the reason where
 * the name is), and its own direction follows its first strong letter.
 */
export function isolated(text: string): HTMLElement {
  return h('bdi', {}, text);
}

/** Runs `work` in a task after the next frame has painted: for what the first paint need not wait for. */
export function afterPaint(work: () => void): void {
  requestAnimationFrame(() => setTimeout(work, 0));
}

/**
 * Puts a box that scrolls in the Tab order, and takes out one that does not:
 * a keyboard reaches a line wider than the box without a stop for every short diff.
 */
export function focusableWhileScrolling(box: HTMLElement): void {
  const scrolls = box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight;
  if (scrolls) box.tabIndex = 0;
  else box.removeAttribute('tabindex');
}

/**
 * Submits with Enter from a one-line input, as a form would; not with the
 * Enter that ends a word an input method composes (the text is not done).
 */
export function onEnter(input: HTMLInputElement, submit: () => void): void {
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
}
