/**
 * Where a ledger is: a SQLite file (a path) or a team database on a PostgreSQL server (a
 * `postgresql://` or `postgres://` URL). One place decides which, so that a URL is never taken
 * for a file name.
 */
import { isPostgresUrl } from '../contract/ledger-setting'

export { isPostgresUrl }

/** The location as it may be shown or logged: a URL's password is masked. */
export function displayLocation(location: string): string {
  if (!isPostgresUrl(location)) return location
  try {
    const u = new URL(location)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return location.replace(/:[^:@/]*@/, ':***@')
  }
}
