/**
 * A SQLite ledger's failures that staff are told in plain words rather than as an internal error:
 * a write that waited its whole time for another program's, and a file that cannot be read. A
 * team ledger's connection says its own (pg/ledger-errors.ts) as AppErrors already. The dispatcher
 * asks this for any error that is not an AppError (contract/dispatch.ts).
 */
import { AppError, because } from '../contract/errors'

const code = (e: unknown) => String((e as { code?: unknown } | null)?.code)

/** A write that waited its whole time for another program's: said as such, never as "database is locked". */
function ledgerBusy(): AppError {
  const message =
    "the ledger is busy with another program's long write (an import from the command line?): your request could not finish; try again in a moment"
  return new AppError('CONFLICT', message, because('LEDGER_BUSY'))
}

/** `e` as the AppError the staff are shown, or null when it is not a ledger failure of this kind. */
export function ledgerFailure(e: unknown): AppError | null {
  const c = code(e)
  if (c === 'SQLITE_BUSY' || c === 'SQLITE_LOCKED') return ledgerBusy()
  if (/^SQLITE_(CORRUPT|NOTADB|IOERR)/.test(c)) {
    const message = `the ledger file cannot be read (${(e as Error).message}): nothing was changed; restore it from a backup`
    return new AppError('DATABASE', message)
  }
  return null
}
