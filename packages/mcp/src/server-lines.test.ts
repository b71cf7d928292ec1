import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { describe, expect, it } from 'vitest';
import { ServerLineBuffer, useServerLineBuffer } from './server-lines.js';

const answer = (id: number) => ({ jsonrpc: '2.0', id, result: { content: [] } });
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

/** Every message `buffer` reads from `chunks`, and what it threw, in order. */
function readAll(buffer: { append(c: Buffer): void; readMessage(): unknown }, chunks: string[]) {
  const read: unknown[] = [];
  for (const chunk of chunks) {
    buffer.append(Buffer.from(chunk));
    // As the SDK's transport reads: until null, an error told and the next line read.
    for (;;) {
      try {
        const message = buffer.readMessage();
        if (message === null) break;
        read.push(message);
      } catch (error) {
        read.push(`error: ${(error as Error).message}`);
      }
    }
  }
  return read;
}

describe('ServerLineBuffer', () => {
  it('reads what the SDK buffer reads, a line at a time, over chunks', () => {
    const chunks = [
      `${line(answer(1))}${line(answer(2)).slice(0, 10)}`,
      line(answer(2)).slice(10, 30),
      `${line(answer(2)).slice(30)}${JSON.stringify(answer(3))}\r\n`,
      '  \n',
    ];
    const ours = readAll(new ServerLineBuffer(), chunks);
    expect(ours.slice(0, 3)).toEqual([answer(1), answer(2), answer(3)]);
    // A blank line is no JSON, as the SDK's buffer finds too.
    expect(ours[3]).toMatch(/^error: /);
    expect(readAll(new ReadBuffer(), chunks).slice(0, 3)).toEqual(ours.slice(0, 3));
  });

  it('refuses JSON that is no object and reads on: a null line does not stop the reading', () => {
    const read = readAll(new ServerLineBuffer(), [`null\n[1]\n7\n"x"\n${line(answer(4))}`]);
    const refused = (text: string) =>
      `error: the server wrote a line that is no JSON-RPC message: ${text}`;
    expect(read).toEqual([
      refused('null'),
      refused('[1]'),
      refused('7'),
      refused('"x"'),
      answer(4),
    ]);
  });

  it('a line over the limit clears the buffer and throws the SDK words', () => {
    const buffer = new ServerLineBuffer(64);
    buffer.append(Buffer.from('{"jsonrpc":"2.0",'));
    expect(() => buffer.append(Buffer.alloc(60, 32))).toThrow(
      'ReadBuffer exceeded maximum size of 64 bytes',
    );
    expect(readAll(buffer, [line(answer(5))])).toEqual([answer(5)]);
  });

  it('takes the place of the SDK stdio transport buffer (the field this SDK version has)', () => {
    const transport = new StdioClientTransport({ command: process.execPath });
    expect(useServerLineBuffer(transport)).toBe(true);
    expect((transport as unknown as { _readBuffer: unknown })._readBuffer).toBeInstanceOf(
      ServerLineBuffer,
    );
    expect(useServerLineBuffer({})).toBe(false);
  });
});
