import { describe, expect, it } from 'vitest';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { documentContext, lintEditorDocument } from './document-lint.js';

const RULES =
  '[\n  {"tool": "write", "path": "path", "match": ".env", "verdict": "deny", "reason": "s"}\n]\n';

async function findingsOf(text: string) {
  const document = TextDocument.create('untitled:agent.rules.json', 'json', 1, text);
  const linted = await lintEditorDocument(document, await documentContext(document, undefined));
  const outcome = linted!.outcome;
  if (!outcome.ok) return [outcome.message];
  return outcome.findings.map((finding) => [finding.code, finding.location.offset]);
}

describe('an editor document linted as check lints its file', () => {
  it('lints a text that starts with a byte order mark, at the offsets of the editor text', async () => {
    const plain = await findingsOf(RULES);
    expect(plain).toEqual([['fragment-without-star', RULES.indexOf('".env"')]]);
    expect(await findingsOf(`\uFEFF${RULES}`)).toEqual([
      ['fragment-without-star', RULES.indexOf('".env"') + 1],
    ]);
  });
});
