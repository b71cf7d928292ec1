import { createReadStream } from 'node:fs';

const CHUNK_BYTES = 64 * 1024;

/**
 * Reads a stream until it ends or until more than `limit` bytes came in,
 * then stops (and destroys the stream): at most `limit + 1` bytes are kept,
 * so a caller can tell "over the limit" without holding an endless input.
 */
export async function readStreamBounded(
  stream: AsyncIterable<Uint8Array>,
  limit: number,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    total += chunk.length;
    if (total > limit) break;
  }
  return Buffer.concat(chunks, Math.min(total, limit + 1));
}

/**
 * Reads a file until its end or until more than `limit` bytes came in,
 * whatever its stat size says (files under /proc report 0 and never end).
 * Throws the file system's error when it cannot be opened or read.
 */
export function readFileBounded(path: string, limit: number): Promise<Uint8Array> {
  // Whole chunks: some special files (/proc/PID/pagemap) refuse reads of odd sizes.
  return readStreamBounded(createReadStream(path, { highWaterMark: CHUNK_BYTES }), limit);
}
