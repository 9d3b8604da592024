export { SUCCESS_ANSWERS } from './answers.js';
export { API_PREFIX, buildOpenApiDocument } from './openapi.js';
export { OPERATIONS, type Operation, type OperationId } from './operations.js';
export {
  Category,
  IDEMPOTENCY_KEY_MAX,
  IDEMPOTENCY_KEY_PATTERN,
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
} from './schemas.js';
