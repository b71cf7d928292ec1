import { z } from 'zod';

/** The name a wire schema is published under (OpenAPI `components.schemas`). */
export interface ProtocolSchemaMeta {
  id: string;
  description?: string;
}

/**
 * The shared wire schemas by name. A private registry (not zod's global one)
 * so that loading core twice cannot collide on ids.
 */
export const PROTOCOL_SCHEMAS = z.registry<ProtocolSchemaMeta>();

/** Registers a shared wire schema under its published name and returns it. */
export function named<S extends z.ZodType>(schema: S, meta: ProtocolSchemaMeta): S {
  PROTOCOL_SCHEMAS.add(schema, meta);
  return schema;
}

/** Any JSON value. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** Any JSON value: what a tool takes and returns, opaque to the kernel. */
export const JsonValueSchema: z.ZodType<JsonValue> = named(
  z.lazy(() =>
    z.union([
      z.string(),
      z.number(),
      z.boolean(),
      z.null(),
      z.array(JsonValueSchema),
      z.record(z.string(), JsonValueSchema),
    ]),
  ),
  { id: 'JsonValue', description: 'Any JSON value; the kernel reads it only through rule paths.' },
);
