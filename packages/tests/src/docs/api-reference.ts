/** The parts of an OpenAPI 3.1 document the reference reads. */
interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  $ref?: string;
  description?: string;
}

interface OperationObject {
  operationId: string;
  summary: string;
  tags?: string[];
  'x-airlock-planes'?: string[];
  'x-airlock-role'?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<
    string,
    { description: string; content?: Record<string, { schema: JsonSchema }> }
  >;
}

/** A live subscription as the document's `x-airlock-subscriptions` extension carries it. */
interface SubscriptionObject {
  name: string;
  summary: string;
  transport: 'websocket' | 'trpc';
  path: string;
  planes: string[];
  query: JsonSchema;
  messages: JsonSchema;
  errors: string[];
}

/** An OpenAPI document as the kernel serves it at `GET /openapi.json`. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, JsonSchema & { description?: string }> };
  'x-airlock-subscriptions'?: {
    subscriptions: SubscriptionObject[];
    schemas: Record<string, JsonSchema>;
  };
}

/** A short type for a JSON schema: `string`, `"a" | "b"`, `string[]`, `object`. */
export function typeOf(schema: JsonSchema | undefined): string {
  if (!schema || Object.keys(schema).length === 0) return 'any JSON';
  if (schema.$ref) return schema.$ref.split('/').at(-1) ?? 'object';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return [...new Set(union.map(typeOf))].join(' \\| ');
  const types = [schema.type ?? 'object'].flat();
  return types.map((type) => (type === 'array' ? `${typeOf(schema.items)}[]` : type)).join(' \\| ');
}

/** A text for one cell of a Markdown table: on one line, its pipes escaped. */
function tableCell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

/** A field's notes: its description (zod's `.describe()`), then its default and bounds. */
function notes(schema: JsonSchema | undefined): string {
  if (!schema) return '';
  const bounds = constraints(schema);
  if (!schema.description) return bounds;
  const description = tableCell(schema.description.trim());
  return bounds ? `${description} (${bounds})` : description;
}

function constraints(schema: JsonSchema): string {
  const parts: string[] = [];
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  // The bounds of every safe integer say nothing a reader needs.
  if (schema.minimum !== undefined && schema.minimum > Number.MIN_SAFE_INTEGER) {
    parts.push(`min ${schema.minimum}`);
  }
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) {
    parts.push(`max ${schema.maximum}`);
  }
  if (schema.maxLength !== undefined) parts.push(`at most ${schema.maxLength} characters`);
  return parts.join(', ');
}

function fieldTable(schema: JsonSchema | undefined): string[] {
  const properties = Object.entries(schema?.properties ?? {});
  if (properties.length === 0) return ['(no fields)'];
  const required = new Set(schema?.required ?? []);
  return [
    '| field | type | required | notes |',
    '| --- | --- | --- | --- |',
    ...properties.map(
      ([name, property]) =>
        `| \`${name}\` | ${typeOf(property)} | ${required.has(name) ? 'yes' : 'no'} | ${notes(property)} |`,
    ),
  ];
}

function renderOperation(method: string, path: string, operation: OperationObject): string[] {
  const lines = [
    `### \`${method.toUpperCase()} ${path}\``,
    '',
    `${operation.summary}.`,
    '',
    `Operation \`${operation.operationId}\` · credential: ${(operation['x-airlock-planes'] ?? []).join(' or ')}${operation['x-airlock-role'] ? ` · member role: ${operation['x-airlock-role']}` : ''}`,
    '',
  ];
  const parameters = operation.parameters ?? [];
  if (parameters.length > 0) {
    lines.push(
      '| parameter | in | type | required | notes |',
      '| --- | --- | --- | --- | --- |',
      ...parameters.map(
        (p) =>
          `| \`${p.name}\` | ${p.in} | ${typeOf(p.schema)} | ${p.required ? 'yes' : 'no'} | ${notes(p.schema)} |`,
      ),
      '',
    );
  }
  const body = operation.requestBody?.content['application/json']?.schema;
  if (body && Object.keys(body.properties ?? {}).length > 0) {
    lines.push('Request body (JSON):', '', ...fieldTable(body), '');
  }
  const statuses = Object.keys(operation.responses).sort();
  const success = statuses.find((status) => status.startsWith('2'));
  if (success) {
    const schema = operation.responses[success]?.content?.['application/json']?.schema;
    lines.push(`Answers **${success}** with ${typeOf(schema)}`);
    if (schema?.properties) lines.push('', ...fieldTable(schema));
    lines.push('');
  }
  const errors = statuses.filter((status) => !status.startsWith('2'));
  if (errors.length > 0) {
    lines.push(
      'Errors:',
      '',
      '| status | codes |',
      '| --- | --- |',
      ...errors.map((status) => {
        const codes = (operation.responses[status]?.description ?? '')
          .split(', ')
          .filter(Boolean)
          .map((code) => `\`${code}\``);
        return `| ${status} | ${codes.join(', ')} |`;
      }),
      '',
    );
  }
  return lines;
}

/** The `type` of each message a subscription sends, or its one schema's name. */
function messageTypes(schema: JsonSchema, components: Record<string, JsonSchema>): string {
  const resolve = (variant: JsonSchema) =>
    variant.$ref ? (components[variant.$ref.split('/').at(-1) ?? ''] ?? variant) : variant;
  const variants = (schema.oneOf ?? schema.anyOf ?? []).map(
    (variant) => resolve(variant).properties?.type?.const,
  );
  if (variants.length > 0 && variants.every((type) => typeof type === 'string')) {
    return `messages of the types ${variants.map((type) => `\`${type}\``).join(', ')}`;
  }
  return typeOf(schema);
}

function renderSubscription(
  subscription: SubscriptionObject,
  components: Record<string, JsonSchema>,
): string[] {
  const door = subscription.transport === 'websocket' ? 'WebSocket' : 'tRPC subscription';
  return [
    `### ${door} \`${subscription.path}\``,
    '',
    subscription.summary,
    '',
    `Subscription \`${subscription.name}\` · credential: ${subscription.planes.join(' or ')}`,
    '',
    subscription.transport === 'websocket' ? 'Query parameters:' : 'Input:',
    '',
    ...fieldTable(subscription.query),
    '',
    `Sends ${messageTypes(subscription.messages, components)}.`,
    '',
    `Refused with: ${subscription.errors.map((code) => `\`${code}\``).join(', ')}, beyond the common codes.`,
    '',
  ];
}

/**
 * Renders the API reference page from the kernel's OpenAPI document: one
 * section per tag, one entry per operation with its credential, parameters,
 * body fields, answer and error codes.
 */
export function renderApiReference(document: OpenApiDocument): string {
  const subscriptions = document['x-airlock-subscriptions']?.subscriptions ?? [];
  const byTag = new Map<string, { method: string; path: string; operation: OperationObject }[]>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const tag = operation.tags?.[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, operation }]);
    }
  }
  const lines = [
    '# API reference',
    '',
    "<!-- Generated from the kernel's OpenAPI document by packages/tests/scripts/gen-api-reference.ts; do not edit. -->",
    '',
    `${document.info.title} ${document.info.version}, from the OpenAPI ${document.openapi} document every kernel serves at \`GET /openapi.json\`. ${document.info.description ?? ''}`.trim(),
    '',
    'Send the token as `Authorization: Bearer <token>`. Every operation is also a tRPC procedure under `/trpc/<operation>`; `@airlock/sdk` reads through tRPC and writes through the REST routes. The live feeds are [subscriptions](#subscriptions): the lifecycle feed and the executor cable over WebSocket, and the feed as a tRPC subscription; see [concepts](concepts.md) and [executors](executors.md).',
    '',
    '## Contents',
    '',
    ...[...byTag.entries()].flatMap(([tag, operations]) => [
      `- **${tag}**: ${operations.map(({ operation }) => `\`${operation.operationId}\``).join(', ')}`,
    ]),
    ...(subscriptions.length > 0
      ? [
          `- **subscriptions**: ${subscriptions.map((subscription) => `\`${subscription.name}\``).join(', ')}`,
        ]
      : []),
    '',
  ];
  for (const [tag, operations] of byTag) {
    lines.push(`## ${tag}`, '');
    for (const { method, path, operation } of operations) {
      lines.push(...renderOperation(method, path, operation));
    }
  }
  if (subscriptions.length > 0) {
    lines.push(
      '## Subscriptions',
      '',
      'Live feeds, declared in `@airlock/core` (`SUBSCRIPTION_CONTRACTS`) and carried by the document as `x-airlock-subscriptions`. A WebSocket takes its token as `Authorization: Bearer <token>` or `?access_token=`.',
      '',
    );
    const components = document['x-airlock-subscriptions']?.schemas ?? {};
    for (const subscription of subscriptions) {
      lines.push(...renderSubscription(subscription, components));
    }
  }
  const schemas = Object.entries(document.components?.schemas ?? {});
  if (schemas.length > 0) {
    lines.push(
      '## Shared schemas',
      '',
      'The views the operations answer with, as `components.schemas` of the document (defined once, in `@airlock/core`).',
      '',
    );
    for (const [name, schema] of schemas) {
      lines.push(`### ${name}`, '');
      if (schema.description) lines.push(schema.description, '');
      const variants = (schema.oneOf ?? []).map((variant) => variant.properties?.type?.const);
      if (variants.length > 0 && variants.every((type) => typeof type === 'string')) {
        lines.push(`One of the types: ${variants.map((type) => `\`${type}\``).join(', ')}.`, '');
      } else {
        lines.push(...(schema.properties ? fieldTable(schema) : [typeOf(schema)]), '');
      }
    }
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
