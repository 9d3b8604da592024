import type { SchemaName } from './schemas.js';

/** Statuses of error answers that the document describes, each with a reusable response component. */
export type ErrorStatus = 400 | 401 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503;

/**
 * One operation of the API: the single description from which the OpenAPI document, the route's
 * validation and serialization, and the served route table are all derived.
 */
export interface Operation {
  operationId: string;
  method: 'GET' | 'POST';
  /** The path below the `/v1` base address, in OpenAPI form (`/pets/{petId}`). */
  path: string;
  tag: string;
  summary: string;
  description: string;
  requestBody?: SchemaName;
  success: { status: 200 | 201; description: string; schema: SchemaName; array?: boolean };
  /** The list supports `If-None-Match` and answers 304 with its `ETag`. */
  conditional?: boolean;
  /** Error answers beyond those every operation can give (401, 429, 500). */
  errors: readonly ErrorStatus[];
}

/** Error statuses every operation can answer. */
export const COMMON_ERRORS: readonly ErrorStatus[] = [401, 429, 500];

/** Error statuses every operation with a JSON request body can answer. */
const BODY_ERRORS: readonly ErrorStatus[] = [400, 413, 415];

export const OPERATIONS = [
  {
    operationId: 'listCategories',
    method: 'GET',
    path: '/categories',
    tag: 'Categories',
    summary: 'List categories',
    description:
      'Returns every category, in ascending `id` order, without paging. The answer carries a strong `ETag`; ' +
      'send it back in `If-None-Match` to get `304 Not Modified` while the list is unchanged.',
    success: {
      status: 200,
      description: 'All categories, ascending by id.',
      schema: 'Category',
      array: true,
    },
    conditional: true,
    errors: [],
  },
  {
    operationId: 'createCategory',
    method: 'POST',
    path: '/categories',
    tag: 'Categories',
    summary: 'Create a category',
    description:
      'Creates a category and returns it with the `id` the service assigned. The answer is sent only after ' +
      'the category is durably stored. Names need not be unique.',
    requestBody: 'NewCategory',
    success: {
      status: 201,
      description: 'The created category, including its assigned id.',
      schema: 'Category',
    },
    errors: BODY_ERRORS,
  },
] as const satisfies readonly Operation[];

export type OperationId = (typeof OPERATIONS)[number]['operationId'];
