import type { TestKernel } from '../support/kernel.js';

/** The OpenAPI document as a kernel serves it at `GET /openapi.json`. */
export interface ServedDocument {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        requestBody?: { required?: boolean; content: Record<string, { schema: unknown }> };
        responses: Record<string, { description: string; content?: unknown }>;
      }
    >
  >;
  components: { schemas: Record<string, unknown> };
}

/** Fetches a kernel's OpenAPI document. */
export async function fetchDocument(kernel: TestKernel): Promise<ServedDocument> {
  const response = await fetch(`${kernel.url}/openapi.json`);
  if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
  return (await response.json()) as ServedDocument;
}

/** Every operation of a document by its operationId. */
export function operationsOf(document: ServedDocument) {
  return new Map(
    Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((operation) => [operation.operationId, operation] as const),
    ),
  );
}
