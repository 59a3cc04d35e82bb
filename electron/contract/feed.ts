/** A sales feed's limits and how its bytes travel: read by the contract, the browser host, the importer and the screen. */

/**
 * The largest sales feed an import takes, in bytes: 512 MiB, about 290,000 sales of 1.8 kB with
 * their plays (the screen, the browser host and the importer refuse a larger file: split it).
 * The feed is held in memory whole while it is checked, all or nothing.
 */
export const FEED_MAX_BYTES = 512 * 1024 * 1024

/** The channels whose argument of bytes the browser host takes as the request's body (not JSON), and which argument it is. */
export const BYTES_BODIES: Readonly<Partial<Record<string, string>>> = { 'sales:import': 'content' }

/** The content type of such a body. */
export const BYTES_CONTENT_TYPE = 'application/octet-stream'

/** The header that carries the call's other arguments beside a body of bytes, as URI-encoded JSON. */
export const BYTES_ARGS_HEADER = 'x-carats-args'
