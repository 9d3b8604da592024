/** The actor an admin request's changes are audited as: its token's or its person's id. */
export const actorOf = (request: { admin: { id: string } | null }): string => request.admin?.id ?? 'unknown';
