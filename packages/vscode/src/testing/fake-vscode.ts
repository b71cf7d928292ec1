import * as childProcess from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire, wrap } from 'node:module';
import { dirname } from 'node:path';
import { runInThisContext } from 'node:vm';

/** A disposable, as VS Code's API hands them out. */
interface Disposable {
  dispose(): void;
}

/** A file system watcher the fake VS Code created, and what became of it. */
export interface WatcherRecord {
  readonly glob: string;
  disposed: boolean;
  /** Listeners (onDidCreate, onDidChange, onDidDelete) registered and not disposed yet. */
  liveListeners: number;
}

/** A VS Code stand-in with the parts the extension's own code uses, and what it saw. */
export interface FakeVscode {
  /** The module the bundle gets for `require("vscode")`. */
  readonly module: object;
  readonly watchers: WatcherRecord[];
  readonly errors: string[];
  /** Tells every `onDidChangeConfiguration` listener that `section` changed. */
  changeConfiguration(section: string): void;
}

/**
 * Any other part of the API, far enough for vscode-languageclient to start and
 * stop a client: every property is another stub, every call returns one.
 */
function stub(): unknown {
  return new Proxy(function api() {}, {
    get(_target, property) {
      if (property === Symbol.iterator) return function* () {};
      if (property === 'then' || typeof property === 'symbol') return undefined;
      return stub();
    },
    apply: () => stub(),
    construct: () => stub() as object,
  });
}

/** The object `name` of the API: the given members, a stub for every other one. */
function partOfApi(members: Record<string, unknown>): object {
  return new Proxy(members, {
    get: (target, property) =>
      typeof property === 'string' && Object.hasOwn(target, property) ? target[property] : stub(),
  });
}

/** A VS Code event: `event(listener, thisArgs?, disposables?)` returns (and files) a disposable. */
function recordedEvent(record: WatcherRecord) {
  return (_listener: unknown, _thisArgs?: unknown, disposables?: Disposable[]): Disposable => {
    record.liveListeners += 1;
    let live = true;
    const disposable = {
      dispose() {
        if (live) record.liveListeners -= 1;
        live = false;
      },
    };
    disposables?.push(disposable);
    return disposable;
  };
}

/** A fake `vscode` module (version 1.82.0, no settings set) that records watchers and errors. */
export function fakeVscode(): FakeVscode {
  const watchers: WatcherRecord[] = [];
  const errors: string[] = [];
  const configurationListeners: ((event: unknown) => void)[] = [];
  const workspace = partOfApi({
    getConfiguration: () => ({ get: () => undefined }),
    createFileSystemWatcher(glob: string) {
      const record: WatcherRecord = { glob, disposed: false, liveListeners: 0 };
      watchers.push(record);
      return {
        onDidCreate: recordedEvent(record),
        onDidChange: recordedEvent(record),
        onDidDelete: recordedEvent(record),
        dispose() {
          record.disposed = true;
        },
      };
    },
    onDidChangeConfiguration(listener: (event: unknown) => void): Disposable {
      configurationListeners.push(listener);
      return { dispose: () => undefined };
    },
    // No folder open, as VS Code has it for a window without a workspace; the language client
    // follows folder changes since the server asks for them.
    workspaceFolders: undefined,
    onDidChangeWorkspaceFolders: (): Disposable => ({ dispose: () => undefined }),
  });
  const window = partOfApi({
    showErrorMessage(message: string) {
      errors.push(message);
      return Promise.resolve(undefined);
    },
  });
  return {
    module: partOfApi({ version: '1.82.0', workspace, window }),
    watchers,
    errors,
    changeConfiguration(section) {
      for (const listener of configurationListeners)
        listener({ affectsConfiguration: (asked: string) => asked === section });
    },
  };
}

/** What `loadExtension` returns: the bundle's exports and the servers it forked. */
export interface LoadedExtension {
  readonly activate: (context: unknown) => Promise<void>;
  readonly deactivate: () => Promise<void>;
  readonly servers: childProcess.ChildProcess[];
}

/**
 * Runs a CommonJS extension bundle as VS Code would load it, with `vscode`
 * answered by `host` and every forked server process recorded. Nothing
 * global is patched: the bundle gets its own `require`.
 */
export function loadExtension(bundle: string, host: FakeVscode): LoadedExtension {
  const servers: childProcess.ChildProcess[] = [];
  const recordingChildProcess = {
    ...childProcess,
    fork(...args: Parameters<typeof childProcess.fork>) {
      const child = childProcess.fork(...args);
      servers.push(child);
      return child;
    },
  };
  const realRequire = createRequire(bundle);
  const bundleRequire = Object.assign(
    (id: string) => {
      if (id === 'vscode') return host.module;
      if (id === 'child_process' || id === 'node:child_process') return recordingChildProcess;
      return realRequire(id);
    },
    { resolve: realRequire.resolve, cache: realRequire.cache },
  );
  const module = { exports: {} as Record<string, unknown> };
  const run = runInThisContext(wrap(readFileSync(bundle, 'utf8')), { filename: bundle });
  run(module.exports, bundleRequire, module, bundle, dirname(bundle));
  return {
    activate: module.exports.activate as LoadedExtension['activate'],
    deactivate: module.exports.deactivate as LoadedExtension['deactivate'],
    servers,
  };
}
