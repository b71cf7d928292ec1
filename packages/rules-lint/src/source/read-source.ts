import { stat } from 'node:fs/promises';
import { readFileBounded } from './read-bounded.js';

/**
 * Largest rule file read. A declaration is at most 64 KiB of JSON; the
 * bound leaves room for examples and formatting while refusing, before
 * reading, anything that cannot be a rule file.
 */
export const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

/**
 * A file's text without its leading byte order mark (kept aside, `''` when
 * there is none, so a fix can write it back), or one line saying why it
 * cannot be linted.
 */
export type SourceText =
  | { ok: true; text: string; byteOrderMark: string }
  | { ok: false; message: string };

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads a rule file as UTF-8 text (a leading BOM is dropped). Never throws:
 * a missing or unreadable file, a directory, a file over MAX_SOURCE_BYTES,
 * or one that is binary (a NUL byte) or not UTF-8 gives `ok: false`.
 */
export async function readSource(path: string): Promise<SourceText> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return { ok: false, message: `${path}: not a file` };
    if (info.size > MAX_SOURCE_BYTES) {
      return { ok: false, message: `${path}: ${overLimitMessage(info.size)}` };
    }
    // The stat size only lets a too large file be refused early: the read is bounded whatever it said.
    return decodeSource(path, await readFileBounded(path, MAX_SOURCE_BYTES));
  } catch (error) {
    return { ok: false, message: `${path}: cannot read (${describeFsError(error)})` };
  }
}

/** Decodes bytes as a rule file's text, refusing binary and non-UTF-8 content and more than MAX_SOURCE_BYTES. */
export function decodeSource(path: string, bytes: Uint8Array): SourceText {
  if (bytes.length > MAX_SOURCE_BYTES) {
    // The reads stop one byte past the limit, so the true size is unknown here.
    return {
      ok: false,
      message: `${path}: over the ${formatSize(MAX_SOURCE_BYTES)} limit for a rule file (reading stopped there)`,
    };
  }
  if (bytes.includes(0))
    return { ok: false, message: `${path}: binary file (it contains NUL bytes), not JSON` };
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, message: `${path}: not UTF-8 text` };
  }
  // The decoder keeps the marks (ignoreBOM): a leading one, and one more after it, are dropped here.
  const byteOrderMark = /^\uFEFF{1,2}/.exec(text)?.[0] ?? '';
  return { ok: true, text: text.slice(byteOrderMark.length), byteOrderMark };
}

/** Why a text of `size` bytes is not linted (the size over MAX_SOURCE_BYTES). */
export function overLimitMessage(size: number): string {
  return `${formatSize(size)} is over the ${formatSize(MAX_SOURCE_BYTES)} limit for a rule file`;
}

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${bytes} bytes`;
}

/** A file system error in a few words (`permission denied`, `no such file`, or its code). */
export function describeFsError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'a directory';
  return typeof code === 'string' ? code : 'unknown error';
}
