/** The served OpenAPI document, as JSON. */
export type OpenApiDocument = Record<string, unknown>;

/** An operation of the document that the panel can send. */
export interface DocumentOperation {
  operationId: string;
  tag: string;
  summary: string;
  method: string;
  path: string;
}

/**
 * The document's operations but its HEADs (the GET beside each shows the same headers), in the document's
 * order, which is Redoc's.
 */
export function operationsOf(spec: OpenApiDocument): DocumentOperation[] {
  const found: DocumentOperation[] = [];
  for (const [path, item] of Object.entries(spec.paths as Record<string, Record<string, unknown>>)) {
    for (const [method, value] of Object.entries(item)) {
      if (method === 'head') continue;
      const operation = value as { operationId?: string; tags?: string[]; summary?: string };
      if (operation.operationId === undefined || operation.tags?.[0] === undefined) continue;
      found.push({
        operationId: operation.operationId,
        tag: operation.tags[0],
        summary: operation.summary ?? operation.operationId,
        method: method.toUpperCase(),
        path,
      });
    }
  }
  return found;
}

/** The document without `x-codeSamples`: the samples beside each operation are the panel's own. */
export function withoutCodeSamples(spec: OpenApiDocument): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, item] of Object.entries(spec.paths as Record<string, Record<string, unknown>>)) {
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, value]) => {
        if (typeof value !== 'object' || value === null || !('x-codeSamples' in value))
          return [method, value];
        const { 'x-codeSamples': _samples, ...rest } = value as Record<string, unknown>;
        return [method, rest];
      }),
    );
  }
  return { ...spec, paths };
}
