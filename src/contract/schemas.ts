import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ERROR_CODES } from '../errors/index.js';
import { stringEnum } from './enum.js';
import { KeyInfo, KeyRotation, KeyUsageHistory, RevokedKey, RotatedKey } from './keys.js';
import { LoggedRequest, OwnRequestQuery } from './requests.js';

/** Category name: 1 to 100 characters, not whitespace only (DESIGN.md section 3). */
export const NAME_MAX = 100;
/** Category description: at most 1000 characters. */
export const DESCRIPTION_MAX = 1000;
/** `Idempotency-Key`: 1 to 255 printable ASCII characters, space included, as a header carries them unambiguously. */
export const IDEMPOTENCY_KEY_MAX = 255;
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x20-\\x7E]+$';

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
    code: stringEnum(ERROR_CODES, {
      description: 'Machine-readable error code; the closed set is listed in the error table.',
    }),
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

/** Ids are int64 in the contract; JSON numbers are exact only up to 2^53 - 1, so that is the ceiling. */
const Id = (description: string) =>
  Type.Integer({ format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description, examples: [1] });

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
const petStatus = (options: { default?: string } = {}) =>
  stringEnum(PET_STATUSES, {
    description: 'available: can be ordered; pending: an order was placed; sold.',
    ...options,
  });
export const PetStatus = petStatus();

export const NewPet = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: NAME_MAX,
      pattern: '\\S',
      description: 'Pet name, 1 to 100 characters, not only whitespace.',
      examples: ['Rex'],
    }),
    categoryId: Id('The id of an existing category.'),
    status: Type.Optional(petStatus({ default: 'available' })),
  },
  {
    additionalProperties: false,
    description: 'Request body for creating a pet. Unknown fields are refused.',
  },
);

export const Pet = Type.Object(
  {
    id: Id('Unique identifier assigned by the service.'),
    name: NewPet.properties.name,
    categoryId: NewPet.properties.categoryId,
    status: PetStatus,
  },
  { additionalProperties: false, description: 'A pet of the store.' },
);

/** The most items one page holds, and how many it holds when `after` is given without `limit`. */
export const PAGE_LIMIT_MAX = 1000;
export const DEFAULT_PAGE_LIMIT = 100;

const PageLimit = Type.Integer({
  minimum: 1,
  maximum: PAGE_LIMIT_MAX,
  description:
    'At most this many items, 1 to 1000. With `limit` or `after` the answer is one page, and ' +
    '`Link: <…>; rel="next"` while more remain; with neither, the whole list.',
  examples: [100],
});
const AfterId = Id('Only items after this id: the last id of the page before (`after` alone: 100 items).');

export const CategoryQuery = Type.Object(
  { limit: Type.Optional(PageLimit), after: Type.Optional(AfterId) },
  { additionalProperties: false },
);

export const PetQuery = Type.Object(
  {
    categoryId: Type.Optional(Id('Only pets of this category.')),
    status: Type.Optional(PetStatus),
    limit: Type.Optional(PageLimit),
    after: Type.Optional(AfterId),
  },
  { additionalProperties: false },
);

export const PetParams = Type.Object({ petId: Id('The id of the pet.') }, { additionalProperties: false });

export const ORDER_STATUSES = ['placed', 'approved', 'delivered'] as const;
export const OrderStatus = stringEnum(ORDER_STATUSES, {
  description: 'placed on creation; approved and delivered as the store fulfils it.',
});

export const NewOrder = Type.Object(
  {
    petId: Id('The id of an available pet.'),
    quantity: Type.Integer({ minimum: 1, maximum: 1000, description: 'How many, 1 to 1000.', examples: [1] }),
  },
  {
    additionalProperties: false,
    description: 'Request body for placing an order. Unknown fields are refused.',
  },
);

export const Order = Type.Object(
  {
    id: Id('Unique identifier assigned by the service.'),
    petId: NewOrder.properties.petId,
    quantity: NewOrder.properties.quantity,
    status: OrderStatus,
    createdAt: Type.String({ format: 'date-time', description: 'When the order was placed (UTC).' }),
  },
  { additionalProperties: false, description: 'An order of the store.' },
);

export const OrderQuery = Type.Object(
  {
    status: Type.Optional(OrderStatus),
    limit: Type.Optional(PageLimit),
    after: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[A-Za-z0-9_-]+$',
        description:
          'Only orders older than this cursor: take it from the `Link` of the page before; it is opaque (`after` alone: 100 items).',
        examples: ['MjAyNi0xMS0yNVQxMDowMDowMC4wMDBafDQy'],
      }),
    ),
  },
  { additionalProperties: false },
);

/** Every named schema of the document, by its name under `components.schemas`. */
export const SCHEMAS = {
  NewCategory,
  Category,
  NewPet,
  Pet,
  NewOrder,
  Order,
  KeyInfo,
  KeyUsageHistory,
  KeyRotation,
  RotatedKey,
  RevokedKey,
  LoggedRequest,
  Error: ErrorSchema,
} satisfies Record<string, TSchema>;
export type SchemaName = keyof typeof SCHEMAS;

/** The query string of an operation that takes no parameters: any parameter is unknown, and refused. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/** Schemas of query strings and path parameters, inlined as parameters in the document. */
export const PARAMETER_SCHEMAS = {
  CategoryQuery,
  PetQuery,
  PetParams,
  OrderQuery,
  OwnRequestQuery,
  NoQuery,
} satisfies Record<string, TSchema>;
export type ParameterSchemaName = keyof typeof PARAMETER_SCHEMAS;

export type NewCategory = Static<typeof NewCategory>;
export type Category = Static<typeof Category>;
export type NewPet = Static<typeof NewPet>;
export type Pet = Static<typeof Pet>;
export type PetStatus = Static<typeof PetStatus>;
export type PetQuery = Static<typeof PetQuery>;
export type NewOrder = Static<typeof NewOrder>;
export type Order = Static<typeof Order>;
export type OrderStatus = Static<typeof OrderStatus>;
export type OrderQuery = Static<typeof OrderQuery>;
export type CategoryQuery = Static<typeof CategoryQuery>;
