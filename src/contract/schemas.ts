import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ERROR_CODES } from '../errors/index.js';

/** Category name: 1 to 100 characters, not whitespace only (DESIGN.md section 3). */
export const NAME_MAX = 100;
/** Category description: at most 1000 characters. */
export const DESCRIPTION_MAX = 1000;

export const NewCategory = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: NAME_MAX,
      pattern: '\\S',
      description: 'Category name, 1 to 100 characters, not only whitespace. Stored as given.',
      examples: ['Dog'],
    }),
    description: Type.Optional(
      Type.String({
        maxLength: DESCRIPTION_MAX,
        description: 'Short description of the category, at most 1000 characters.',
        examples: ['Domestic dogs of every breed'],
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Request body for creating a category. Unknown fields are refused.',
  },
);

export const Category = Type.Object(
  {
    id: Type.Integer({
      format: 'int64',
      minimum: 1,
      description: 'Unique identifier assigned by the service on creation; increasing, never reused.',
      examples: [1],
    }),
    name: NewCategory.properties.name,
    description: NewCategory.properties.description,
  },
  { additionalProperties: false, description: 'A category of pets, by species or breed.' },
);

export const ErrorSchema = Type.Object(
  {
    code: Type.Union(
      ERROR_CODES.map((code) => Type.Literal(code)),
      { description: 'Machine-readable error code; the closed set is listed in the error table.' },
    ),
    message: Type.String({ description: 'Human-readable description; names the field at fault.' }),
    status: Type.Integer({
      minimum: 400,
      maximum: 599,
      description: 'The HTTP status code of the response.',
    }),
    requestId: Type.Optional(Type.String({ description: 'The request id, also sent as `X-Request-Id`.' })),
  },
  { additionalProperties: false, description: 'Body of every error response.' },
);

/** Every named schema of the document, by its name under `components.schemas`. */
export const SCHEMAS = { NewCategory, Category, Error: ErrorSchema } satisfies Record<string, TSchema>;
export type SchemaName = keyof typeof SCHEMAS;

export type NewCategory = Static<typeof NewCategory>;
export type Category = Static<typeof Category>;
