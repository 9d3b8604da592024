export {
  type Actor,
  type AuditAction,
  type AuditEntry,
  type AuditFilter,
  type AuditRecord,
  type AuditRepository,
  CLI_ACTOR,
} from './types.js';
