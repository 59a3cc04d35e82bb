/**
 * Leases of long jobs across workstations (issue 17 part 3): generate, verify and simulate on an
 * emission, import of a feed (by its SHA-256). A lease is a row of `job_leases (kind, subject)`
 * taken in a write transaction that locks its key first (on a team ledger, a lock of the key's
 * name; on SQLite, the file's), so two workstations never both take one. Its holder beats it while the job runs and drops it at
 * the end; a lease whose holder is gone (its heartbeat older than LEASE_TIMEOUT_MS, or its process
 * ended on this host, or its backend on this thread closed) is taken over, and the interrupted
 * job is recorded in the audit log ('job.interrupted'). See docs/ledger.md.
 */
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { AppError, because } from '../contract/errors'
import type { Db } from '../ledger/db'
import { lockSubject } from '../ledger/row-locks'
import { quietWrite } from '../ledger/quiet-writes'
import type { AuditService } from './audit'
import { type Clock, iso, processIsAlive } from './common'

export type LeaseKind = 'generate' | 'verify' | 'simulate' | 'import'

/** How often a running job writes its heartbeat (at most). */
export const LEASE_HEARTBEAT_MS = 10_000
/** A lease not heard from for this long is dead, even if its process lives on. */
export const LEASE_TIMEOUT_MS = 60_000

/** A lease as the ledger holds it (times in ms since the epoch). */
export interface LeaseRow {
  kind: LeaseKind
  subject: string
  holder: string
  host: string
  pid: number
  startedAt: number
  heartbeatAt: number
}

/** Which lease: what a worker thread needs to beat it on its own connection (leaseBeater). */
export interface LeaseRef {
  kind: LeaseKind
  subject: string
  holder: string
}

export interface Lease extends LeaseRef {
  /** Writes the heartbeat (at most every LEASE_HEARTBEAT_MS); false once the lease was taken over. */
  beat(): boolean
  /** Whether this holder still has the lease (another workstation may have taken it over). */
  held(): boolean
  /** Gives the lease up (nothing if it was taken over). */
  drop(): void
}

export interface Leases {
  /** This backend's holder id. */
  readonly holder: string
  /** Takes the lease, or refuses with CONFLICT (LEASE_HELD) naming who holds it and since when. */
  take(kind: LeaseKind, subject: string): Lease
  /** The live leases on a subject, of any kind (held here or elsewhere). */
  liveOn(subject: string): LeaseRow[]
  /** Refuses (LEASE_HELD) if another holder has a live lease on the subject, of any kind. */
  refuseIfHeldElsewhere(subject: string): void
  /** The dead leases on a subject, of any kind. */
  deadOn(subject: string): LeaseRow[]
  /** Removes a dead lease and records the interrupted job (inside the caller's write transaction). */
  clearDead(row: LeaseRow): void
  /** Ends this holder: its leases count as dead for every backend of this process. */
  close(): void
}

/**
 * A lease's heartbeat, written on `db` at most every LEASE_HEARTBEAT_MS; false once the lease was
 * taken over. Written by the connection doing the job (a simulation's worker beats on its own),
 * as a quiet write (ledger/quiet-writes.ts): every connection's player cache stays valid.
 */
export function leaseBeater(db: Db, ref: LeaseRef, now: () => number): () => boolean {
  const beatStmt = db.prepare('UPDATE job_leases SET heartbeat_at = ? WHERE kind = ? AND subject = ? AND holder = ?')
  let lastBeat = now()
  let lost = false
  return () => {
    if (lost) return false
    const t = now()
    if (t - lastBeat < LEASE_HEARTBEAT_MS) return true
    lastBeat = t
    lost = quietWrite(db, () => beatStmt.run(t, ref.kind, ref.subject, ref.holder)).changes === 0
    return !lost
  }
}

/**
 * The holders closed on this thread. A lease of this process held by a holder closed here is
 * dead; one of another holder (open here, or of another worker thread) is judged by its heartbeat.
 */
const closedHolders = new Set<string>()

/** Whether the lease's holder may still be running its job. */
export function leaseIsLive(lease: Pick<LeaseRow, 'holder' | 'host' | 'pid' | 'heartbeatAt'>, now: number): boolean {
  if (now - lease.heartbeatAt > LEASE_TIMEOUT_MS) return false
  if (lease.host !== hostname()) return true
  if (lease.pid === process.pid) return !closedHolders.has(lease.holder)
  return processIsAlive(lease.pid)
}

/** The refusal of a job whose lease another holder has. */
export function leaseHeld(row: LeaseRow): AppError {
  const since = iso(new Date(row.startedAt))
  const heard = iso(new Date(row.heartbeatAt))
  return new AppError(
    'CONFLICT',
    `${row.kind === 'import' ? 'an' : 'a'} ${row.kind} task on ${row.subject} is already running on workstation ${row.host} (process ${row.pid}) since ${since}, last heard from at ${heard}; wait for it to end`,
    because('LEASE_HELD', { kind: row.kind, subject: row.subject, host: row.host, pid: row.pid, since, heard }),
  )
}

const COLUMNS = 'kind, subject, holder, host, pid, started_at AS "startedAt", heartbeat_at AS "heartbeatAt"'

export function createLeases({ db, clock, audit }: { db: Db; clock: Clock; audit: AuditService }): Leases {
  const holder = randomUUID()
  const host = hostname()
  const one = db.prepare(`SELECT ${COLUMNS} FROM job_leases WHERE kind = ? AND subject = ?`)
  const onSubject = db.prepare(`SELECT ${COLUMNS} FROM job_leases WHERE subject = ? ORDER BY kind`)
  // a free key, or a dead lease cleared first: the insert never replaces a lease someone holds
  const insert =
    db.prepare(`INSERT INTO job_leases (kind, subject, holder, host, pid, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (kind, subject) DO NOTHING`)
  const dropStmt = db.prepare('DELETE FROM job_leases WHERE kind = ? AND subject = ? AND holder = ?')
  const now = () => clock().getTime()

  /** A dead lease removed and its job recorded interrupted, once: a lease another writer cleared already is not recorded again. */
  function clearDead(row: LeaseRow): void {
    if (dropStmt.run(row.kind, row.subject, row.holder).changes !== 1) return
    audit.record('system', 'job.interrupted', `${row.kind}:${row.subject}`, {
      kind: row.kind,
      subject: row.subject,
      host: row.host,
      pid: row.pid,
      startedAt: iso(new Date(row.startedAt)),
      heartbeatAt: iso(new Date(row.heartbeatAt)),
      note: 'its workstation stopped before the task ended; it was taken over',
    })
  }

  function lease(kind: LeaseKind, subject: string): Lease {
    return {
      kind,
      subject,
      holder,
      beat: leaseBeater(db, { kind, subject, holder }, now),
      held: () => (one.get(kind, subject) as LeaseRow | undefined)?.holder === holder,
      drop() {
        dropStmt.run(kind, subject, holder)
      },
    }
  }

  return {
    holder,
    take(kind, subject) {
      // a read first, which waits for no writer: a job held elsewhere is refused at once, even
      // while a write transaction (an import's, on SQLite) holds the ledger's file
      const seen = one.get(kind, subject) as LeaseRow | undefined
      if (seen && leaseIsLive(seen, now())) throw leaseHeld(seen)
      db.transaction(() => {
        // on a team ledger two takers of one key take turns here: the second reads what the first wrote
        lockSubject(db, `lease ${kind}:${subject}`)
        const t = now()
        const old = one.get(kind, subject) as LeaseRow | undefined
        if (old && leaseIsLive(old, t)) throw leaseHeld(old)
        if (old) clearDead(old)
        if (insert.run(kind, subject, holder, host, process.pid, t, t).changes !== 1)
          throw new Error(`the lease ${kind}:${subject} could not be written`)
      }).immediate()
      return lease(kind, subject)
    },
    liveOn: (subject) => (onSubject.all(subject) as LeaseRow[]).filter((r) => leaseIsLive(r, now())),
    refuseIfHeldElsewhere(subject) {
      const other = (onSubject.all(subject) as LeaseRow[]).find((r) => r.holder !== holder && leaseIsLive(r, now()))
      if (other) throw leaseHeld(other)
    },
    deadOn: (subject) => (onSubject.all(subject) as LeaseRow[]).filter((r) => !leaseIsLive(r, now())),
    clearDead,
    close() {
      closedHolders.add(holder)
    },
  }
}

/** The subject of an emission's jobs. */
export const emissionSubject = (emission: number) => `emission:${emission}`
/** The subject of a feed's import: its SHA-256 in hex. */
export const feedSubject = (sha256: string) => `feed:${sha256}`
