import type { Clock } from '../clock/index.js';
import { type Role, roleAllows } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import type { AdminHandlers } from '../http/index.js';
import { insufficientRole, roleOf } from '../identity/index.js';
import {
  filterOf,
  operatorView,
  type RequestLog,
  type RequestRecord,
  requestLogOff,
  sendExport,
  sendPage,
} from '../request-log/index.js';

/** The request log's rows as a role sees them: a viewer without the client's address. */
const requestView = (role: Role) =>
  roleAllows(role, 'support')
    ? operatorView
    : (record: RequestRecord) => ({ ...operatorView(record), client: null });

/** The handlers of the request log: its rows by a filter, paged or exported, and one request by its id. */
export function requestHandlers(deps: {
  /** The request log; undefined when it is off. */
  requestLog: RequestLog | undefined;
  clock: Clock;
}): Pick<AdminHandlers, 'listRequests' | 'getRequest'> {
  const { requestLog, clock } = deps;
  return {
    async listRequests(request, reply) {
      if (requestLog === undefined) throw requestLogOff();
      const { query } = request;
      const role = roleOf(request);
      // A viewer does not see client addresses, nor finds requests by one.
      if (query.client !== undefined && !roleAllows(role, 'support'))
        throw insufficientRole('Filtering the request log by client', 'support', request.admin);
      const view = requestView(role);
      const filter = filterOf(query);
      if (query.format === 'ndjson' || query.format === 'csv') {
        return sendExport(reply, requestLog, filter, { format: query.format, now: clock.now(), view });
      }
      return sendPage(request, reply, requestLog, filter, query, view);
    },
    async getRequest(request, reply) {
      if (requestLog === undefined) throw requestLogOff();
      const { requestId } = request.params;
      const [found] = await requestLog.list({ requestId, limit: 1 });
      if (found === undefined) {
        throw new ApiError('not_found', `No request of the kept days has the id ${requestId}`);
      }
      return reply.send(requestView(roleOf(request))(found));
    },
  };
}
