import type { MessageReader } from 'vscode-languageserver/node.js';

/** How the server hears that its input is over or unusable. */
export interface TransportEndOptions {
  readonly input: NodeJS.ReadableStream;
  readonly reader: MessageReader;
  /** A body that is not JSON: the frame was read whole, so the server can go on. */
  onBadMessage(reason: string): void;
  /** The input ended, or its framing broke (nothing after it can be read): stop serving. */
  onEnd(reason: string | undefined): void;
}

/**
 * Ends the server when its input ends (also in the middle of a frame, which
 * would otherwise leave the reader waiting forever) or when a header is
 * malformed: the reader cannot find the next frame after that, so going on
 * would leave a process that never answers again.
 */
export function watchTransportEnd(options: TransportEndOptions): void {
  let ended = false;
  const end = (reason: string | undefined) => {
    if (ended) return;
    ended = true;
    options.onEnd(reason);
  };
  options.input.on('end', () => end(undefined));
  options.input.on('close', () => end(undefined));
  options.reader.onClose(() => end(undefined));
  options.reader.onError((error) => {
    const message = error instanceof Error ? error.message : String(error);
    // The reader decodes a body with JSON.parse only after framing it, so a SyntaxError is local.
    if (error instanceof SyntaxError) options.onBadMessage(`a message is not JSON (${message})`);
    else end(`the input is not framed as LSP messages (${firstLine(message)}); stopping`);
  });
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
