import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentLint } from './document-lint.js';

/**
 * The lint of each open document's current version, shared by its
 * diagnostics, code actions and completion: a version is linted once, not
 * again for every `"` typed (the completion trigger) or quick fix asked
 * for, and code actions answer for the findings the editor shows.
 */
export class LintCache {
  private readonly byUri = new Map<string, { version: number; lint: Promise<DocumentLint> }>();

  constructor(private readonly lint: (document: TextDocument) => Promise<DocumentLint>) {}

  /** The lint of the document's current version, linting it when it is not cached yet. */
  get(document: TextDocument): Promise<DocumentLint> {
    const cached = this.byUri.get(document.uri);
    if (cached?.version === document.version) return cached.lint;
    const lint = this.lint(document);
    const entry = { version: document.version, lint };
    this.byUri.set(document.uri, entry);
    // A failed lint is not kept: the next request tries again.
    lint.catch(() => {
      if (this.byUri.get(document.uri) === entry) this.byUri.delete(document.uri);
    });
    return lint;
  }

  /** Drops a closed document's lint. */
  forget(uri: string): void {
    this.byUri.delete(uri);
  }

  /** Drops every lint (a config may have changed). */
  clear(): void {
    this.byUri.clear();
  }
}
