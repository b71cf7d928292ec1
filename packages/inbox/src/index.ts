export { inboxDistDir } from './dist-dir.js';
export { createInboxHandler, type InboxHandler, type InboxHandlerOptions } from './serve.js';
