import type { Decision, LayerDecision, LayerName } from '@airlock/core';
import type { RunTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import type { IncomingCall } from './incoming-call.js';

/**
 * The shape of one policy layer beside the declared approval rules: what it
 * sees of a call and what it says. The layers themselves register in
 * policy-layers.ts; this file names their contract so that a layer and the
 * registry that lists it do not import each other.
 */

/** What a layer sees of one call at the approval stage. */
export interface LayerCall {
  readonly ctx: KernelContext;
  readonly tx: Tx;
  readonly run: RunTable;
  /** The run's frozen policy-layer configuration: only the keys the layers declared. */
  readonly frozen: Readonly<Record<string, unknown>>;
  readonly call: IncomingCall;
  /** The resolved tool name (runner qualification and aliases applied). */
  readonly toolName: string;
  /**
   * The name the call was made by, runner qualification stripped but before
   * aliases: the name an executor serves. Equal to `toolName` when no alias
   * applied; otherwise a deny or ask naming it binds the call as well.
   */
  readonly calledName: string;
  /** What the declared approval rules decided. */
  readonly base: Decision;
}

/** One policy layer of the approval stage. */
export interface PolicyLayer {
  readonly name: LayerName;
  /** The configuration keys (profile or create call) this layer reads and the run freezes. */
  readonly configurationKeys: readonly string[];
  /**
   * True when the layer reads a call even of a run that froze none of its
   * keys (the workspace's guardrails bind every run).
   */
  readonly appliesWithoutConfiguration?: boolean;
  /** What the layer says about the call, or null when it does not apply. */
  evaluate(call: LayerCall): LayerDecision | null | Promise<LayerDecision | null>;
}
