import type { AuditRepository } from '../audit/index.js';
import type { Clock } from '../clock/index.js';
import type { ApiKey } from '../contract/index.js';
import type { DomainManager } from '../domains/index.js';
import type { AdminHandlers } from '../http/index.js';
import type {
  AdminAuthenticator,
  AdminTokenManager,
  AdminTokenRepository,
  Sessions,
} from '../identity/index.js';
import type { ApiKeyRecord, KeyManager } from '../keys/index.js';
import type { PeopleRepository } from '../people/index.js';
import type { RateLimiter, RateLimitPolicy } from '../ratelimit/index.js';
import type { RequestLog } from '../request-log/index.js';
import type { UsageRecorder, UsageRepository } from '../usage/index.js';
import type { WebhookManager } from '../webhooks/index.js';
import { tokenHandlers } from './admin-tokens.js';
import { apiKeyHandlers } from './api-keys.js';
import { auditHandlers } from './audit.js';
import { domainHandlers } from './domains.js';
import { peopleHandlers } from './people.js';
import { requestHandlers } from './requests.js';
import { sessionHandlers } from './sessions.js';
import { usageHandlers } from './usage.js';
import { webhookHandlers } from './webhooks.js';

/** What the admin API's handlers call: the same managers as the CLI, and the stores they read. */
export interface AdminHandlerDeps {
  keys: KeyManager;
  /** A key as the admin API shows it. */
  keyView: (record: ApiKeyRecord) => ApiKey;
  domains: DomainManager;
  audit: AuditRepository;
  sessions: Sessions;
  usage: UsageRepository;
  recorder: UsageRecorder;
  rateLimit: RateLimitPolicy;
  /** Today's day window of each key, as the key's own page shows it. */
  limiter: Pick<RateLimiter, 'peekKey'>;
  /** To check the token a sign-in sends in its body, and reread after a token changes. */
  tokens: AdminAuthenticator;
  /** Every admin token, revoked ones too: the audit names its actors; the People page lists people's. */
  adminTokens: Pick<AdminTokenRepository, 'list' | 'madeByPeople'>;
  /** Everyone who signed in with OpenID Connect: the audit names them too. */
  people: PeopleRepository;
  /** Whether an admin token may start a console session (`CONSOLE_TOKEN_SIGNIN`). */
  tokenSignIn: boolean;
  /** Makes and revokes admin tokens, as the CLI does. */
  tokenManager: AdminTokenManager;
  /** The request log; undefined when it is off. */
  requestLog: RequestLog | undefined;
  webhooks: WebhookManager;
  clock: Clock;
}

/**
 * The handlers of the admin API, one module per resource, each typed from its operations' schemas and acting
 * as the request's principal (its token, sent in `Authorization` or of a console session, or its person).
 */
export function createAdminHandlers(deps: AdminHandlerDeps): AdminHandlers {
  const { clock, tokens } = deps;
  return {
    ...apiKeyHandlers(deps),
    ...tokenHandlers({ manager: deps.tokenManager, authenticator: tokens, people: deps.people }),
    ...peopleHandlers({
      people: deps.people,
      sessions: deps.sessions,
      adminTokens: deps.adminTokens,
      authenticator: tokens,
      now: clock.now,
    }),
    ...auditHandlers(deps),
    ...requestHandlers(deps),
    ...sessionHandlers(deps),
    ...usageHandlers(deps),
    ...domainHandlers(deps),
    ...webhookHandlers(deps),
  };
}
