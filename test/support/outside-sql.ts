/**
 * SQL run on a ledger from outside the app, as an insider with the database and without its key
 * would: the `sqlite3` shell on the file, or `psql` with a database account on a team ledger.
 */
import { execFileSync } from 'node:child_process'
import { isPostgresUrl } from '../../electron/ledger/location'

/** Runs `sql` (one or more statements) on the ledger at `location`; returns what the tool printed. */
export function outsideSql(location: string, sql: string): string {
  if (isPostgresUrl(location))
    return execFileSync('psql', [location, '-XAtq', '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8' }).trim()
  return execFileSync('sqlite3', ['-bail', '-cmd', '.timeout 5000', location, sql], { encoding: 'utf8' }).trim()
}
