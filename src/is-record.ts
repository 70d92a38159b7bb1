/** A plain object as JSON gives it (not null, not an array): what a payload from outside is checked to be first. */
export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
