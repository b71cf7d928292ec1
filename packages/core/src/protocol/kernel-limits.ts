/**
 * The lengths the kernel keeps of what a client names, for a client that
 * must fit its own values to them before it sends (the MCP gateway and its
 * bridge). The contracts of `runs.calls`, the provider configuration and
 * `decisions.deny` are written with these constants, so neither side can drift.
 */

/** The longest name a model's or a gateway client's call may have, in characters. */
export const CALL_NAME_MAX = 512;

/** The longest id a call keeps on its row (a gateway call's `id`, a scripted call's), in characters. */
export const CALL_ID_MAX = 200;

/** The longest client a gateway run's provider names (`client`, the MCP client's name and version). */
export const GATEWAY_CLIENT_MAX = 200;

/** The longest reason a deny takes, in characters. */
export const DENY_REASON_MAX = 4096;

/**
 * The most rounds of tool calls the kernel asks a run's `openai` model for
 * when its provider names no `max_rounds`: past it, a model that keeps
 * calling tools ends the run rather than loop until its clocks stop it.
 */
export const MODEL_ROUNDS_DEFAULT = 200;

/** The highest `max_rounds` a run's provider may name. */
export const MODEL_ROUNDS_MAX = 10_000;
