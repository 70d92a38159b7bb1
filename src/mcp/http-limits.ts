/** The HTTP door's limits, apart from http.ts so the CLI's help can name them without loading the SDK. */

/** A request body past this is refused, not buffered: a tool call is a few kB. */
export const MAX_BODY = 1 << 20;

/** How long a session may have no request open before it is closed (`--session-idle`). */
export const SESSION_IDLE_S = 1800;

/**
 * How long a session may have no request open before its runs stop (`--session-idle` caps it): a
 * client that opens no event stream and never comes back frees its robot within this. An SDK
 * client holds its event stream open and never hits it; a minute is well past a model's turn.
 */
export const RUN_HOLD_S = 60;
