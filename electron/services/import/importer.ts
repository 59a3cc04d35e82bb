/**
 * The sales-feed importer. A feed is JSON lines, one sale each:
 *   {"saleId","serial","player","soldAt","stakeCents","play":{"mode","status","events":[…]}}
 * (`"play": null` when the platform recorded no reveal). A file is imported whole or not at all:
 * every line is checked first, and one bad line rejects the file with AppError('IMPORT_REJECTED')
 * whose details list every bad line by number with all its reasons; nothing is stored. A good
 * file is stored in one transaction, with its batch record and its audit entry.
 *
 * Order (SPEC §4: units sell in index order within a block, blocks in order). The lines of a
 * file may come in any order, but for each emission the units the file sells must be exactly the
 * run that starts at the emission's next unsold unit, without a gap; a block's last unit is
 * followed by the next block's first. A line whose unit leaves a gap is refused and named with
 * the unit expected there; the lines after a gap are judged from that line on (one gap, one
 * error, not a cascade). The order is judged over every line that names a unit, bad or not: a
 * line refused for its own reasons (its stake, its play, its time…) still holds its unit's
 * place, so the lines after it are not called out of order because of it. A bad line whose unit
 * cannot be read (not JSON, a malformed line, a mistyped serial) may be the one that fills a
 * gap: a gap is named only when it is wider than the unreadable lines left to fill it.
 *
 * Re-import: a line whose saleId is already recorded with the same content (unit, player,
 * soldAt, stake, play) is skipped and counted as already imported; the same saleId with any
 * other content is a bad line. A saleId with the shape of a serial must be the line's own serial
 * (the ledger stores such ids as the unit itself).
 *
 * soldAt: an ISO 8601 date-time with a zone, on a day and at a time that exist (contract/dates.ts:
 * 2026-02-30 is refused, not rolled over into March), not before the emission's first sale day
 * (or, when it has none, before the emission was created), and not more than SALE_CLOCK_SKEW_MS
 * (5 minutes) ahead of this machine's clock (platform clocks drift a little).
 *
 * player: an account id without control characters or bidirectional formatting characters
 * (contract/text.ts). The file itself must be UTF-8: one that is not is refused with the
 * line and the byte where it stops being UTF-8. It is at most FEED_MAX_BYTES (512 MiB).
 *
 * The folder's parts: README.md beside this file.
 */
import { AppError, because } from '../../contract/errors'
import type { CsvFile, FeedSample, ImportLineError, ImportRecord, ImportResult, Page } from '../../contract/types'
import type { Db } from '../../ledger/db'
import type { AuditService } from '../audit'
import type { Catalog } from '../catalog'
import type { Actor, Clock } from '../common'
import type { FeedArrival } from './arrival'
import { createCarefulImport, type LineRefusal } from './careful'
import { feedBytes, notUtf8Refusal, tooLargeRefusal } from './feed'
import type { ImportOutcome } from './context'
import { importBySeq, listImports, recordImport, recordRefusal, sha256Of, type Refusal } from './history'
import { reasonsCsv, reasonsOf } from './reasons'
import { sampleFeed } from './sample-feed'
import type { CsvStyle } from '../csv'
import type { Problem } from './problems'
import { createStreamedImport, type FeedRead, Irregular } from './stream'
import { createLeases, feedSubject, type Lease, type Leases } from '../leases'
import { withoutKeyChecks } from '../../ledger/dialect'
import type { SalesService } from '../sales'
import type { WriteTurn } from './write-turn'

/** Bad lines listed in the error's details; the message counts them all. */
export const MAX_LISTED = 10_000

export interface ImporterDeps {
  db: Db
  clock: Clock
  catalog: Catalog
  sales: SalesService
  audit: AuditService
  /** Feeds of at least this many bytes are read on a second thread while checked and written (feed-ring.ts). */
  streamFrom?: number
  /** Told how each import was read: streamed through, or carefully (small, or irregular, or refused). */
  onRead?: (how: 'streamed' | 'careful') => void
  /** The leases of long jobs across workstations (default: a holder of its own). */
  leases?: Leases
  /** The write turn shared with the app's thread (the import worker on a SQLite ledger: write-turn.ts). */
  turn?: WriteTurn
}

/** Below this size a feed is read on the importer's thread alone: the reader thread would not pay for itself. */
export const STREAM_FROM_BYTES = 4 << 20

export interface Importer {
  /**
   * Imports a feed given as the bytes of its file (the screen, the command line: no decoding of
   * the whole file, and the hash is the file's own) or as text (the contract's older callers).
   */
  importContent(
    actor: Actor,
    content: string | Uint8Array,
    fileName?: string,
    arrival?: FeedArrival | null,
    announced?: string | null,
  ): ImportResult
  /** The imports, latest first (the contract's sales:imports). */
  history(args: { page: number; pageSize: number }): Page<ImportRecord>
  /** A refused import's reasons, grouped, as a CSV file (the contract's sales:importReasonsCsv). */
  reasonsCsv(args: { seq: number } & CsvStyle): CsvFile
  /** A sample feed in the feed's format (the contract's sales:sampleFeed). */
  sampleFeed(): FeedSample
}

/** The refusal of a feed's bad lines: every one (up to MAX_LISTED) with all its reasons, in English and as codes. */
function linesRejected({ refused: { lines, problems } }: LineRefusal): { error: AppError; refusal: Refusal } {
  const details: ImportLineError[] = [...problems.entries()]
    .sort((a, b) => a[0] - b[0])
    .slice(0, MAX_LISTED)
    .map(([line, list]: [number, Problem[]]) => ({
      line,
      reason: list.map((p) => p.text).join('; '),
      problems: list.map(({ code, params }) => ({ code, params })),
    }))
  const first = details[0]
  const reasons = reasonsOf(problems)
  const message = `${problems.size} bad line${problems.size > 1 ? 's' : ''} of ${lines}: nothing imported (first: line ${first.line}: ${first.reason})`
  return {
    error: new AppError('IMPORT_REJECTED', message, { details }),
    refusal: { lines, badLines: problems.size, first, reasons },
  }
}

/** The SHA-256 a feed was made with (the lease's), and the one it was sent with. */
interface FeedHashes {
  known: string | null
  announced: string | null
}

/** Refuses a feed whose bytes are not those it was sent with (changed or cut on the way). */
function refuseUnlessAnnounced(announced: string | null, actual: string): void {
  if (announced === null || announced === actual) return
  throw new AppError(
    'BAD_ARGUMENTS',
    `the file that arrived is not the one sent (its SHA-256 is ${actual}, not ${announced}): nothing is imported; send it again`,
    {
      field: 'sha256',
      ...because('FEED_HASH_MISMATCH', { announced, actual }),
    },
  )
}

/** A refusal of the file as a whole (its size, its encoding, no line), as the history keeps it. */
function fileRefusal(e: unknown): Refusal | null {
  if (!(e instanceof AppError) || e.code !== 'BAD_ARGUMENTS') return null
  const key = e.extras.reason?.key
  return key === 'FEED_NOT_UTF8' || key === 'FEED_EMPTY' || key === 'FEED_TOO_LARGE'
    ? { lines: key === 'FEED_EMPTY' ? 0 : null, refusal: key }
    : null
}

/** Runs `fn` at once (no turn to take: the command line, a team ledger). */
const noTurn = { hold: <T>(fn: () => T): T => fn() }

export function createImporter(deps: ImporterDeps): Importer {
  const {
    db,
    clock,
    catalog,
    sales,
    audit,
    streamFrom = STREAM_FROM_BYTES,
    onRead,
    leases = createLeases({ db, clock, audit }),
    turn = noTurn,
  } = deps
  // a savepoint: an Irregular line drops what the streamed import wrote
  const stream = createStreamedImport({ db, clock, catalog, sales })
  const streamTx = db.transaction(stream.run)
  const careful = createCarefulImport({ db, clock, catalog, sales })

  /**
   * The feed read, checked and written, or its bad lines: in one transaction. `hashes.known`: the
   * file's SHA-256 where the lease made it; `hashes.announced`: the one it was sent with, which
   * its bytes must have (else nothing is written).
   */
  function run(
    actor: Actor,
    content: Buffer,
    fileName: string | undefined,
    read: FeedRead | null,
    hashes: FeedHashes,
  ): ImportResult | LineRefusal {
    let outcome: ImportOutcome | LineRefusal | null = null
    if (read !== null) {
      try {
        outcome = streamTx(read, hashes.known)
        onRead?.('streamed')
      } catch (e) {
        if (!(e instanceof Irregular)) throw e
      }
    }
    if (outcome === null) {
      // the careful import reads the whole file: an upload is in by now (importContent waited for it)
      onRead?.('careful')
      // fatal, as a decoder would be: a file that is not UTF-8 is refused rather than read with
      // replacement characters (a feed that streamed through is ASCII: the reader takes nothing wider)
      const notUtf8 = notUtf8Refusal(content, fileName)
      if (notUtf8) throw notUtf8
      outcome = careful(content)
    }
    if ('refused' in outcome) return outcome
    // the hash that named the lease, if the reading did not make one
    const actual = outcome.sha256 ?? hashes.known ?? sha256Of(content)
    refuseUnlessAnnounced(hashes.announced, actual)
    return recordImport(db, audit, clock, actor, fileName, content, { ...outcome, sha256: actual })
  }
  // IMMEDIATE: the checks read the sold counts and recorded sales that the write then relies on
  const importTx = db.transaction(run)

  /**
   * The feed's lease (by its SHA-256), so that another workstation importing the same file at once
   * is refused. A feed still arriving (the browser host's upload) has no hash yet: it is leased by
   * the hash it was sent with (checked once its bytes are in), or, sent without one, takes none
   * (the write lock and the re-import rule, the same sale skipped, keep it from counting twice).
   */
  function leaseOf(
    bytes: Uint8Array,
    arrival: FeedArrival | null,
    announced: string | null,
  ): { lease: Lease | null; sha256: string | null } {
    if (arrival !== null)
      return { lease: announced === null ? null : leases.take('import', feedSubject(announced)), sha256: null }
    const sha256 = sha256Of(bytes)
    refuseUnlessAnnounced(announced, sha256)
    return { lease: leases.take('import', feedSubject(sha256)), sha256 }
  }

  return {
    importContent(actor, content, fileName, arrival = null, announced = null) {
      const bytes = feedBytes(content)
      try {
        const tooLarge = tooLargeRefusal(bytes.length, fileName)
        if (tooLarge) throw tooLarge
        // a large feed's reading starts now, while its lease hashes it (the lease makes the hash iff
        // no arrival; an arriving feed is hashed as it is read, to be checked against the announced one)
        const read = bytes.length >= streamFrom ? stream.startRead(bytes, arrival, arrival === null) : null
        let r: ImportResult | LineRefusal
        let lease: Lease | null = null
        try {
          const leased = leaseOf(bytes, arrival, announced)
          lease = leased.lease
          // the write lock is taken once the upload is in (a cut one is refused here, nothing written):
          // never held while its bytes are on their way
          arrival?.waitWhole()
          // the sales are written by sales.sellChecked, whose batch checks their players itself
          const hashes = { known: leased.sha256, announced }
          r = turn.hold(() => withoutKeyChecks(db, () => importTx.immediate(actor, bytes, fileName, read, hashes)))
        } finally {
          read?.stop()
          lease?.drop()
        }
        if (!('refused' in r)) return r
        const { error, refusal } = linesRejected(r)
        recordRefusal(audit, actor, fileName, bytes, refusal)
        throw error
      } catch (e) {
        const refusal = fileRefusal(e)
        if (refusal) recordRefusal(audit, actor, fileName, bytes, refusal)
        throw e
      }
    },
    history: (args) => listImports(db, args),
    reasonsCsv: ({ seq, ...style }) => reasonsCsv(importBySeq(db, seq), clock, style),
    sampleFeed: () => sampleFeed(db, catalog, clock),
  }
}
