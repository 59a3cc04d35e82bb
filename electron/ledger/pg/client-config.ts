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

export function clientConfig(url: string): ClientConfig {
  const parsed = parse(url) as ClientConfig
  const user = parsed.user || process.env.PGUSER || osUser()
  return { ...parsed, port: parsed.port || undefined, user, application_name: 'carats' } as ClientConfig
}
