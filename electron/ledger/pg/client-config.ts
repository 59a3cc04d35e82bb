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

export function clientConfig(url: string): ClientConfig {
  const parsed = parse(url) as ClientConfig & { options?: string }
  const user = parsed.user || process.env.PGUSER || osUser()
  const options = [parsed.options, NO_JIT].filter(Boolean).join(' ')
  return { ...parsed, port: parsed.port || undefined, user, application_name: 'carats', options } as ClientConfig
}
