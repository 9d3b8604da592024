export { API_PREFIX, API_VERSION, buildOpenApiDocument } from './openapi.js';
export { type ErrorStatus, OPERATIONS, type Operation, type OperationId } from './operations.js';
export {
  Category,
  DESCRIPTION_MAX,
  IDEMPOTENCY_KEY_MAX,
  IDEMPOTENCY_KEY_PATTERN,
  NAME_MAX,
  NewCategory,
  NewOrder,
  NewPet,
  Order,
  type OrderQuery,
  type OrderStatus,
  PARAMETER_SCHEMAS,
  Pet,
  type PetQuery,
  type PetStatus,
  SCHEMAS,
  type SchemaName,
} from './schemas.js';
