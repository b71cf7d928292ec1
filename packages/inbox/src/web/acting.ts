import { refusalWords } from './refusal-words.js';
import { endSessionOnVerb } from './session-end.js';

/** The event a container gets once its verb's answer (or refusal) is in. */
export const ACTED = 'airlock-acted';

/**
 * Runs a verb from a card or a story row: its controls are disabled
 * meanwhile, and a refusal is shown in words in the container's `.message`
 * line, with the focus given back to where it was. A verb refused for
 * its token (401) ends the session instead: see {@link endSessionOnVerb}.
 */
export function act(container: HTMLElement, work: () => Promise<void>): void {
  const controls = [
    ...container.querySelectorAll('button, input, textarea'),
  ] as HTMLButtonElement[];
  const message = container.querySelector('.message') as HTMLElement;
  const focused = document.activeElement as HTMLElement | null;
  const hadFocus = focused !== null && container.contains(focused);
  // Disabling a focused control drops the focus to the page: the keyboard (and a screen
  // reader) stays on the container while the verb is in flight, and a refusal gives it back.
  if (hadFocus) {
    if (!container.hasAttribute('tabindex')) container.tabIndex = -1;
    container.focus({ preventScroll: true });
  }
  container.setAttribute('aria-busy', 'true');
  for (const control of controls) control.disabled = true;
  message.textContent = '';
  work()
    .catch((error: unknown) => {
      if (endSessionOnVerb(error)) return;
      for (const control of controls) control.disabled = false;
      message.textContent = refusalWords(error);
      if (hadFocus && focused.isConnected) focused.focus();
    })
    .finally(() => {
      container.removeAttribute('aria-busy');
      // What was held back while the verb was on its way may be drawn now (see DetailPane.show).
      container.dispatchEvent(new Event(ACTED));
    });
}
