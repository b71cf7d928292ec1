import { type DataCallback, Message, type MessageReader } from 'vscode-languageserver/node.js';

/**
 * The reader the connection reads through: a notification that arrives
 * before the `initialize` request is dropped, as the LSP spec wants (all but
 * `exit`), and `onDropped` is told its method. Decided by arrival order, not
 * by whether `initialize` has been answered yet, so a notification a client
 * sends right after `initialize` is never lost to a race.
 */
export function initializeFirst(
  reader: MessageReader,
  onDropped: (method: string) => void,
): MessageReader {
  let initializeRead = false;
  return {
    onError: reader.onError,
    onClose: reader.onClose,
    onPartialMessage: reader.onPartialMessage,
    listen(callback: DataCallback) {
      return reader.listen((message) => {
        if (Message.isRequest(message) && message.method === 'initialize') initializeRead = true;
        else if (!initializeRead && Message.isNotification(message) && message.method !== 'exit') {
          onDropped(message.method);
          return;
        }
        callback(message);
      });
    },
    dispose: () => reader.dispose(),
  };
}
