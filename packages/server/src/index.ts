// What applications use from the kernel package: start a kernel, and seed a
// workspace with its first credentials. The wire types live in @airlock/core.
export { type Airlock, type AirlockOptions, SERVER_VERSION, startAirlock } from './airlock.js';
export { type CredentialKind, createCredential, createWorkspace } from './store/accounts.js';
export { createAgentApplication } from './store/applications.js';
