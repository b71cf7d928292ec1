/**
 * The most tool names one claim (`executor.claimNext`'s `tool_names`) may name: the kernel
 * refuses a longer list, so an executor serving more tools claims for them a share at a time.
 */
export const CLAIM_TOOL_NAMES_MAX = 256;
