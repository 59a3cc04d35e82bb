/** How a `postgresql://` URL becomes pg's client settings: the ledger's connection and the setting screen's test alike. */
import type { ClientConfig } from 'pg'
import { parse } from 'pg-connection-string'
import { userInfo } from 'node:os'

/** As libpq does: a URL without a user name connects as PGUSER, else as the operating-system user. */
function osUser(): string | undefined {
  try {
    return userInfo().username
  } catch {
    return process.env.USER || undefined
  }
}

/**
 * No JIT compilation on the ledger's connections: its statements are short, and a stale estimate
 * (a table that grew by millions of rows since it was last analysed) had the server compile a
 * batch's look-up of 5,000 players for 0.23 s, to run it in 0.01 s. The URL's own options stay.
 */
const NO_JIT = '-c jit=off'

/**
 * A server that does not answer is given up on after this long (a caller waits for its
 * connection's answer, as for SQLite's): a restarted server answers within it, a dead one is said
 * so (LEDGER_UNAVAILABLE) rather than leaving the app frozen. The URL's connect_timeout wins.
 */
const CONNECT_TIMEOUT_MS = 10_000
/**
 * TCP keepalive on the connection: a server gone without a word (a failover, a cable) is found
 * out by the system's probes instead of at the next statement's long timeout.
 */
const KEEPALIVE_DELAY_MS = 10_000

export function clientConfig(url: string): ClientConfig {
  const parsed = parse(url) as ClientConfig & { options?: string; connect_timeout?: string }
  const user = parsed.user || process.env.PGUSER || osUser()
  const options = [parsed.options, NO_JIT].filter(Boolean).join(' ')
  const timeout = parsed.connect_timeout ? Number(parsed.connect_timeout) * 1000 : CONNECT_TIMEOUT_MS
  return {
    ...parsed,
    port: parsed.port || undefined,
    user,
    application_name: 'carats',
    options,
    connectionTimeoutMillis: timeout,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  } as ClientConfig
}
