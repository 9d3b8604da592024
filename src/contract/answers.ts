import fastJsonStringify from 'fast-json-stringify';
import type { Operation } from './operation.js';
import { OPERATIONS, type OperationId } from './operations.js';
import { SCHEMAS, type SchemaName } from './schemas.js';

/** How an operation answers when it succeeds: the status the contract gives it, and its body's serializer. */
export interface SuccessAnswer {
  status: number;
  /** The body, serialized by the contract's schema, as Fastify serializes a route's answer. */
  serialize(value: unknown): string;
}

function successAnswer(operation: Operation<SchemaName>): SuccessAnswer {
  const item = SCHEMAS[operation.success.schema];
  const schema = operation.success.array ? { type: 'array', items: item } : item;
  return {
    status: operation.success.status,
    serialize: fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0]),
  };
}

let compiled: Record<OperationId, SuccessAnswer> | undefined;

/**
 * Every operation's success answer, compiled from the contract on the first call and kept. Not at import:
 * compiling the serializers costs about a third of a second, which every `petstore` command that reads the
 * contract for a constant would pay.
 */
export function successAnswers(): Record<OperationId, SuccessAnswer> {
  compiled ??= Object.fromEntries(
    (OPERATIONS as readonly Operation<SchemaName>[]).map((operation) => [
      operation.operationId,
      successAnswer(operation),
    ]),
  ) as Record<OperationId, SuccessAnswer>;
  return compiled;
}
