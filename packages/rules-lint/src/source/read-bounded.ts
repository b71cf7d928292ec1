import { open } from 'node:fs/promises';

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
export async function readFileBounded(path: string, limit: number): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    // Whole chunks: some special files (/proc/PID/pagemap) refuse reads of odd sizes.
    while (total <= limit) {
      const buffer = Buffer.alloc(CHUNK_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
    }
    return Buffer.concat(chunks, Math.min(total, limit + 1));
  } finally {
    await handle.close();
  }
}
