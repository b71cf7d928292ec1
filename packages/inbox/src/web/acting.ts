import { refusalWords } from './refusal-words.js';

/**
 * Runs a verb from a card or a story row: its controls are disabled
 * meanwhile, and a refusal is shown in words in the container's `.message`
 * line, with the focus given back to where it was.
 */
export function act(container: HTMLElement, work: () => Promise<void>): void {
  const controls = [
    ...container.querySelectorAll('button, input, textarea'),
  ] as HTMLButtonElement[];
  const message = container.querySelector('.message') as HTMLElement;
  // Disabling takes the focus away: a keyboard user gets it back where it was if this fails.
  const focused = document.activeElement as HTMLElement | null;
  for (const control of controls) control.disabled = true;
  message.textContent = '';
  work().catch((error: unknown) => {
    for (const control of controls) control.disabled = false;
    message.textContent = refusalWords(error);
    if (focused && container.contains(focused)) focused.focus();
  });
}
