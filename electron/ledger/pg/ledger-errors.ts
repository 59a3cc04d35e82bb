/**
 * What a team ledger's connection says when the server does not answer as asked: a lock it could
 * not have (another workstation holds a row or subject this write needs, for longer than the
 * ledger waits; a deadlock; a serialization failure), or a connection gone (the server restarted,
 * failed over, or ended it). Each is an AppError with a reason the screens say
 * (LEDGER_BUSY, LEDGER_UNAVAILABLE, LEDGER_COMMIT_UNKNOWN), never "INTERNAL database is locked".
 */
import { AppError, because } from '../../contract/errors'

/** When the connection went: during a transaction, as it committed, during a read, or at (re)connecting. */
export type LossMoment = 'write' | 'commit' | 'read' | 'connect'

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`

/** A lock not had: nothing of the transaction was written (the server rolled it back). */
export function ledgerBusy(ledger: string, waitMs: number | null, cause: string): AppError {
  const waited = waitMs === null ? '' : ` for longer than this workstation waits (${seconds(waitMs)})`
  return new AppError(
    'CONFLICT',
    `another workstation holds what this write needs on the team ledger ${ledger}${waited} (${cause}): nothing of it was written; try again`,
    because('LEDGER_BUSY'),
  )
}

/** The connection gone, at `moment`. */
export function ledgerLost(ledger: string, moment: LossMoment, cause: string): AppError {
  if (moment === 'commit') {
    return new AppError(
      'DATABASE',
      `the connection to the team ledger ${ledger} was lost as this write was committed (${cause}): it was written whole or not at all; look before doing it again`,
      because('LEDGER_COMMIT_UNKNOWN'),
    )
  }
  const text = {
    write: `the connection to the team ledger ${ledger} was lost during this write (${cause}): nothing of it was written (the server undoes what it has not committed); try again`,
    read: `the connection to the team ledger ${ledger} was lost during this read (${cause}): nothing was changed; try again`,
    connect: `cannot reach the team ledger ${ledger} (${cause}): nothing was changed; check that its server runs, then try again in a moment`,
  }[moment]
  return new AppError('DATABASE', text, because('LEDGER_UNAVAILABLE'))
}
