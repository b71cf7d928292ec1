import { createClient, isConnectionError } from '@airlock/sdk';
import { keepTimesTrue } from './clock.js';
import { h } from './dom.js';
import { InboxView } from './inbox.js';
import { PrincipalNames } from './principal-names.js';
import { RecentDecisionsView } from './recent-view.js';
import { RunStoryView } from './run-view.js';
import { endsSession, onSessionEnd } from './session-end.js';
import './styles.css';

const STORAGE_KEY = 'airlock.inbox.session';

/**
 * What a signed-in page remembers for the tab's life. The kernel is always the
 * origin that served the page: its CSP lets it connect nowhere else.
 */
interface Session {
  workspaceId: string;
  token: string;
}

const app = document.getElementById('app') as HTMLElement;

/** A page of the signed-in inbox: it starts, renders, and stops when the route changes. */
interface Page {
  render(): HTMLElement;
  start(): Promise<void>;
  stop(): void;
}

let current: Page | null = null;
let signedIn: { session: Session; content: HTMLElement } | null = null;

function readSession(): Session | null {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Session | null;
    return saved?.token && saved.workspaceId ? saved : null;
  } catch {
    return null;
  }
}

function signOut(reason = ''): void {
  current?.stop();
  current = null;
  signedIn = null;
  sessionStorage.removeItem(STORAGE_KEY);
  showSignIn(reason);
}

function showSignIn(message = ''): void {
  const workspace = h('input', {
    name: 'workspace',
    required: true,
    autocomplete: 'username',
    placeholder: 'ws_...',
  });
  const token = h('input', {
    name: 'token',
    type: 'password',
    required: true,
    autocomplete: 'current-password',
    placeholder: 'member token',
  });
  const note = h('p', { class: 'message', role: 'alert' }, message);
  const form = h(
    'form',
    { class: 'sign-in', 'aria-label': 'sign in' },
    h('h1', {}, 'Airlock inbox'),
    h('p', {}, 'Sign in with a member token to see what waits for a person.'),
    h('label', {}, 'Workspace id', workspace),
    h('label', {}, 'Member token', token),
    h('button', { type: 'submit' }, 'Sign in'),
    note,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const session = {
      workspaceId: workspace.value.trim(),
      token: token.value.trim(),
    };
    note.textContent = 'Signing in…';
    void open(session, { signingIn: true }).catch((error: unknown) => {
      note.textContent = endsSession(error)
        ? `Refused: ${error.detail}`
        : `Cannot reach the kernel: ${(error as Error).message}`;
    });
  });
  app.replaceChildren(form);
}

/** The page a route names: `#/runs/ID` is a run's story, anything else the inbox. */
function pageFor(session: Session, hash: string): Page {
  const client = createClient({ url: location.origin, token: session.token });
  const workspace = client.workspace(session.workspaceId);
  // Read once when the page starts: a label given since shows on the next visit.
  const names = new PrincipalNames(async () => {
    const listed = await client.call('credentials.list', {
      workspace_id: session.workspaceId,
      include_revoked: 'true',
    });
    return listed.credentials;
  });
  if (hash === '#/recent') return new RecentDecisionsView(workspace, names);
  const run = /^#\/runs\/([^/]+)$/.exec(hash);
  if (run?.[1]) return new RunStoryView(workspace, runIdOf(run[1]), names);
  return new InboxView(workspace, { onSignedOut: (reason) => signOut(reason) });
}

/** A run id from a link: its escapes read, or the text as it is when they are not valid. */
function runIdOf(linked: string): string {
  try {
    return decodeURIComponent(linked);
  } catch {
    return linked;
  }
}

/** A page that could not open, said inside the signed-in frame (the session goes on). */
function showFailure(content: HTMLElement, error: unknown): void {
  current?.stop();
  current = null;
  content.replaceChildren(
    h(
      'p',
      { class: 'page-error', role: 'alert' },
      `Cannot open the page: ${(error as Error).message}`,
    ),
  );
}

async function show(session: Session, content: HTMLElement): Promise<void> {
  current?.stop();
  const page = pageFor(session, location.hash);
  current = page;
  content.replaceChildren(page.render());
  await page.start();
}

/**
 * Opens the signed-in frame on the page the address names. Only a refused
 * token rejects (and, when signing in, a kernel that never answered: the
 * token is unproven); any other failure of that first page (a run that is
 * not there, a bad link) is said inside the frame and the session goes on.
 */
async function open(session: Session, options: { signingIn?: boolean } = {}): Promise<void> {
  const content = h('div', { class: 'content' });
  try {
    await show(session, content);
  } catch (error) {
    if (endsSession(error) || (options.signingIn && isConnectionError(error))) {
      current?.stop();
      current = null;
      throw error;
    }
    showFailure(content, error);
  }
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  signedIn = { session, content };
  app.replaceChildren(
    h(
      'header',
      { class: 'top' },
      h('h1', {}, 'Airlock inbox'),
      h(
        'nav',
        { 'aria-label': 'pages' },
        h('a', { href: '#/' }, 'Waiting'),
        ' ',
        h('a', { href: '#/recent' }, 'Decided'),
      ),
      h('span', { class: 'workspace' }, session.workspaceId),
      h('button', { class: 'sign-out', onclick: () => signOut() }, 'Sign out'),
    ),
    content,
  );
}

window.addEventListener('hashchange', () => {
  if (!signedIn) return;
  const { session, content } = signedIn;
  void show(session, content).catch((error: unknown) => {
    if (endsSession(error)) signOut(error.detail);
    else showFailure(content, error);
  });
});

// Any page's read or verb refused for its token ends the session the same way.
// Once: a page told twice (its feed and a verb both refused) leaves one sign-in form.
onSessionEnd((reason) => {
  if (signedIn) signOut(reason);
});

// One clock for every page: the relative times drawn stay true while the tab is open.
keepTimesTrue(app);

const saved = readSession();
// open() rejects only when the kernel refused the token.
if (saved) void open(saved).catch(() => signOut('Your session ended; sign in again.'));
else showSignIn();
