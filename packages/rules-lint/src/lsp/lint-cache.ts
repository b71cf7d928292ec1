import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentContext, DocumentLint } from './document-lint.js';

interface Entry {
  readonly version: number;
  context?: Promise<DocumentContext>;
  lint?: Promise<DocumentLint | undefined>;
}

/**
 * The lint of each open document's current version, shared by its
 * diagnostics, code actions and completion: a version is linted once, not
 * again for every `"` typed (the completion trigger) or quick fix asked
 * for, and code actions answer for the findings the editor shows. Its
 * context (config, tools) is kept apart, so hover and completion never
 * wait for an analysis.
 */
export class LintCache {
  private readonly byUri = new Map<string, Entry>();

  constructor(
    private readonly lint: (
      document: TextDocument,
      context: DocumentContext,
    ) => Promise<DocumentLint | undefined>,
    private readonly context: (document: TextDocument) => Promise<DocumentContext>,
  ) {}

  /** The lint of the document's current version (undefined when a newer version dropped it). */
  get(document: TextDocument): Promise<DocumentLint | undefined> {
    const entry = this.entry(document);
    if (!entry.lint) {
      // The lint uses the very context hover and completion see for this version.
      const lint = this.contextOf(document).then((context) => this.lint(document, context));
      entry.lint = this.kept(document, entry, lint);
    }
    return entry.lint;
  }

  /** The config and tools of the document's current version, without waiting for its analysis. */
  contextOf(document: TextDocument): Promise<DocumentContext> {
    const entry = this.entry(document);
    if (!entry.context) entry.context = this.kept(document, entry, this.context(document));
    return entry.context;
  }

  /** Drops a closed document's lint. */
  forget(uri: string): void {
    this.byUri.delete(uri);
  }

  /** Drops every lint (a config may have changed). */
  clear(): void {
    this.byUri.clear();
  }

  private entry(document: TextDocument): Entry {
    const cached = this.byUri.get(document.uri);
    if (cached?.version === document.version) return cached;
    const entry: Entry = { version: document.version };
    this.byUri.set(document.uri, entry);
    return entry;
  }

  /** A failed (or dropped) lint is not kept: the next request tries again. */
  private kept<T>(document: TextDocument, entry: Entry, promise: Promise<T>): Promise<T> {
    const drop = () => {
      if (this.byUri.get(document.uri) === entry) this.byUri.delete(document.uri);
    };
    promise.then((value) => value === undefined && drop(), drop);
    return promise;
  }
}
