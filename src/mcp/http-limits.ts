/** The HTTP door's limits, apart from http.ts so the CLI's help can name them without loading the SDK. */

/** A request body past this is refused, not buffered: a tool call is a few kB. */
export const MAX_BODY = 1 << 20;

/** How long a session may have no request open before it is closed (`--session-idle`). */
export const SESSION_IDLE_S = 1800;
