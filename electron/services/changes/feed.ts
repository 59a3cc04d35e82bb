/**
 * The change feed read from the audit log (README.md): every change of state appends an entry in
 * its own transaction, on whichever workstation made it, so the entries after the last one seen
 * are exactly what changed since. Each entry names its action and its object (`emission:3`,
 * `unit:0001-001-0000042-7`, `user:12`); an entry becomes the changes of the topics it touches.
 */
import type { Change, ChangeTopic } from '../../contract/changes'
import type { Db } from '../../ledger/db'

/** What one audit entry changed, before its sequence number is added. */
type Touch = { topic: ChangeTopic; id: string | null }

/** The id part of an object `kind:id` when its kind is `kind` (a block's `3/1` gives its emission, 3). */
function idOf(object: string, kind: string): string | null {
  if (!object.startsWith(`${kind}:`)) return null
  const id = object.slice(kind.length + 1)
  return kind === 'block' ? id.split('/', 1)[0] : id
}

const emission = (object: string): string | null => idOf(object, 'emission') ?? idOf(object, 'block')

/** An account's change is told to the screens that list accounts, and to the account's own sessions. */
function accountTouches(object: string): Touch[] {
  const id = idOf(object, 'user')
  return id === null
    ? []
    : [
        { topic: 'users', id },
        { topic: 'session', id },
      ]
}

/** The topics an audit entry touches (none: nothing an open screen shows, such as a sign-in). */
export function touchesOf(action: string, object: string): Touch[] {
  const [domain] = action.split('.', 1)
  if (domain === 'ceremony')
    return [
      { topic: 'ceremony', id: emission(object) },
      { topic: 'emissions', id: emission(object) },
    ]
  if (domain === 'emission' || domain === 'block') return [{ topic: 'emissions', id: emission(object) }]
  if (domain === 'claim') return action === 'claim.identity-view' ? [] : [{ topic: 'claims', id: idOf(object, 'unit') }]
  if (action === 'sales.import' || action === 'sales.import-rejected')
    return [
      { topic: 'imports', id: null },
      { topic: 'claims', id: null },
      { topic: 'emissions', id: null },
    ]
  if (domain === 'sales')
    return [
      { topic: 'claims', id: null },
      { topic: 'emissions', id: emission(object) },
    ]
  if (domain === 'user' || action === 'auth.password-change' || action === 'auth.setup') return accountTouches(object)
  if (domain === 'party')
    return [
      { topic: 'parties', id: null },
      { topic: 'claims', id: null },
    ]
  if (action === 'job.interrupted') return [{ topic: 'emissions', id: null }]
  return []
}

interface EntryRow {
  seq: number
  action: string
  object: string
}

/** The newest entry's number (0: an empty log). */
export function auditHead(db: Db): number {
  return Number(db.prepare('SELECT coalesce(max(seq), 0) FROM audit').pluck().get() ?? 0)
}

/**
 * The changes of the entries after `after`, at most `limit` entries (the rest next time), oldest
 * first, with the number of the last entry read. A log whose head is behind `after` (a ledger put
 * back from a backup) starts again from its head, with one change of each topic as a whole.
 */
export function changesAfter(db: Db, after: number, limit = 500): { last: number; changes: Change[] } {
  const rows = db
    .prepare('SELECT seq, action, object FROM audit WHERE seq > ? ORDER BY seq LIMIT ?')
    .all(after, limit) as EntryRow[]
  if (rows.length === 0) {
    const head = auditHead(db)
    if (head >= after) return { last: after, changes: [] }
    return { last: head, changes: everything(head) }
  }
  const changes = rows.flatMap((r) => touchesOf(r.action, r.object).map((t) => ({ seq: Number(r.seq), ...t })))
  return { last: Number(rows[rows.length - 1].seq), changes: collapse(changes) }
}

/** Every topic as a whole (but the sessions, which each screen keeps by its own calls). */
function everything(seq: number): Change[] {
  const topics: ChangeTopic[] = ['ceremony', 'emissions', 'claims', 'imports', 'users', 'parties']
  return topics.map((topic) => ({ seq, topic, id: null }))
}

/** One change per topic and id, the latest: a thousand steps on one claim are one change to tell. */
export function collapse(changes: readonly Change[]): Change[] {
  const latest = new Map<string, Change>()
  for (const c of changes) {
    const key = `${c.topic}\u0000${c.id ?? ''}`
    latest.delete(key)
    latest.set(key, c)
  }
  return [...latest.values()]
}
