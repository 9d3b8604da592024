// What a request id may be, with nothing of TypeBox: the contract's schemas use it, and the key page, which
// bundles this file, checks a pasted id with it before asking for it.

/** The longest request id, in characters. */
export const REQUEST_ID_MAX = 128;

/** The shape of a request id the request log takes: what the service echoes of a client's `X-Request-Id`. */
export const REQUEST_ID_PATTERN = `^[A-Za-z0-9._:@/+=-]{1,${REQUEST_ID_MAX}}$`;
