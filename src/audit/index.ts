export {
  type Actor,
  type AuditAction,
  type AuditEntry,
  type AuditRecord,
  type AuditRepository,
  CLI_ACTOR,
} from './types.js';
