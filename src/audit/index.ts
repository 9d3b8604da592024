export {
  ACTOR_KIND_SQL,
  type Actor,
  type AuditAction,
  type AuditEntry,
  type AuditFilter,
  type AuditRecord,
  type AuditRepository,
  actorKindOf,
  CLI_ACTOR,
} from './types.js';
