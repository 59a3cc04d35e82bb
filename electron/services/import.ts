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
 * error, not a cascade).
 *
 * Re-import: a line whose saleId is already recorded with the same content (unit, player,
 * soldAt, stake, play) is skipped and counted as already imported; the same saleId with any
 * other content is a bad line. A saleId with the shape of a serial must be the line's own serial
 * (the ledger stores such ids as the unit itself).
 *
 * soldAt: an ISO 8601 date-time with a zone, not before the emission's first sale day, and not
 * more than a minute ahead of this machine's clock (platform clocks drift a little).
 */
import { isUtf8 } from 'node:buffer'
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { AppError } from '../contract/errors'
import type { ImportLineError, ImportResult } from '../contract/types'
import { validatePlay, type Play } from '../../game-core/play'
import type { GameDefinition } from '../../game-core/rules'
import { formatSerial, parseSerial, SerialError, type UnitId } from '../../game-core/serial'
import type { Db } from '../ledger/db'
import { splitUnitKey, unitKey } from '../ledger/migrations'
import { isValidPlayFast, packEvents, playCode } from '../ledger/play-codec'
import type { AuditService } from './audit'
import type { BlockRow, Catalog, EmissionRow } from './catalog'
import { type Actor, type Clock, iso, toMillis } from './common'
import { describeStatus } from './emissions'
import { packFastPlay, readFeedLineFast } from './feed-line'
import { NO_PLAY, type SalesService } from './sales'

export const FUTURE_TOLERANCE_MS = 60_000
/** Bad lines listed in the error's details; the message counts them all. */
export const MAX_LISTED = 10_000
const MAX_TEXT = 64
const SERIAL_SHAPE = /^\d{4}-\d{3}-\d{7}-\d$/

const text = (what: string) =>
  z.string().min(1, `${what} is empty`).max(MAX_TEXT, `${what} is longer than ${MAX_TEXT} characters`).refine((s) => s.trim() === s, `${what} has spaces around it`)

/** One line's shape. The events are checked by the game's own rules (validatePlay), with their fields. */
export const feedLineSchema = z
  .object({
    saleId: text('saleId'),
    serial: z.string().max(40, 'serial is too long'),
    player: text('player'),
    soldAt: z.string().max(40, 'soldAt is too long'),
    stakeCents: z.number().int('stakeCents must be a whole number of cents'),
    play: z
      .object({
        mode: z.enum(['play', 'auto']),
        status: z.enum(['complete', 'interrupted']),
        events: z.array(z.unknown()).max(64, 'a play has at most 64 events'),
      })
      .strict()
      .nullable(),
  })
  .strict()

type FeedLineData = z.infer<typeof feedLineSchema>
/** Sale ids looked up in one query. */
const ID_CHUNK = 5000
const EVENT_KEYS = new Set(['t', 'zone', 'cell', 'gesture'])

export interface ImporterDeps {
  db: Db
  clock: Clock
  catalog: Catalog
  sales: SalesService
  audit: AuditService
}

export interface Importer {
  /**
   * Imports a feed given as text (the contract's sales:import) or as the bytes of its file (the
   * command line: no decoding of the whole file, and the hash is the file's own).
   */
  importContent(actor: Actor, content: string | Uint8Array, fileName?: string): ImportResult
}

/** A line that passed every check of its own, before the checks across lines. */
interface GoodLine {
  line: number
  saleId: string
  serial: string
  emission: number
  block: number
  unit: number
  key: number
  player: string
  soldAt: number
  stake: number
  play: { code: number; events: Buffer } | null
}

interface StoredSale {
  unit_key: number
  sale_id: string | null
  player: string
  sold_at: number
  stake_cents: number
  play: number | null
  events: Buffer | null
}

function valueAt(root: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
  let v: unknown = root
  for (const k of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, k)) return { present: false, value: undefined }
    v = (v as Record<PropertyKey, unknown>)[k]
  }
  return { present: true, value: v }
}

function describeZodIssue(issue: z.core.$ZodIssue, root: unknown): string {
  const path = issue.path.map(String).join('.')
  if (issue.code === 'unrecognized_keys') {
    const where = path ? ` in ${path}` : ''
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}${where}`
  }
  if (issue.code === 'invalid_type' && !valueAt(root, issue.path).present) return `missing field "${path}"`
  if (issue.code === 'invalid_value' && path) return `${path} must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`
  if (issue.code === 'invalid_type') {
    const what = issue.expected === 'object' ? 'an object' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`
    return `${path || 'the line'} must be ${what}${issue.expected === 'object' && path === 'play' ? ' or null' : ''}, not ${JSON.stringify(valueAt(root, issue.path).value)}`
  }
  return path && !issue.message.startsWith(path) ? `${path}: ${issue.message}` : issue.message
}

/** The events' own fields: validatePlay judges their values, this the keys it does not look at. */
function eventFieldProblems(events: unknown[]): string[] {
  const out: string[] = []
  events.forEach((e, i) => {
    if (e === null || typeof e !== 'object' || Array.isArray(e)) return
    const keys = Object.keys(e)
    const extra = keys.filter((k) => !EVENT_KEYS.has(k))
    const missing = [...EVENT_KEYS].filter((k) => !(k in e))
    if (extra.length) out.push(`event ${i + 1}: unknown field${extra.length > 1 ? 's' : ''} ${extra.map((k) => `"${k}"`).join(', ')}`)
    if (missing.length) out.push(`event ${i + 1}: missing field${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"${k}"`).join(', ')}`)
  })
  return out
}

const fastEventKeys = (events: unknown[]): boolean => {
  for (const e of events) {
    if (e === null || typeof e !== 'object') return false
    let n = 0
    for (const k in e) {
      if (!EVENT_KEYS.has(k)) return false
      n++
    }
    if (n !== 4) return false
  }
  return true
}

export function createImporter({ db, clock, catalog, sales, audit }: ImporterDeps): Importer {
  const byIds = db.prepare(`SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events
                            FROM sales s JOIN players p ON p.id = s.player_id WHERE s.sale_id IN (SELECT value FROM json_each(?))`)
  const byKey = db.prepare(`SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events
                            FROM sales s JOIN players p ON p.id = s.player_id WHERE s.unit_key = ?`)
  const insertBatch = db.prepare('INSERT INTO import_batches (file_sha256, file_name, lines, imported, already, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)')

  function run(actor: Actor, content: Buffer, fileName: string | undefined): ImportResult {
    const now = clock().getTime()
    const problems = new Map<number, string[]>()
    const bad = (line: number, reason: string) => {
      const list = problems.get(line)
      if (list) list.push(reason)
      else problems.set(line, [reason])
    }

    // emissions and blocks, read once
    const emissions = new Map<number, { row: EmissionRow; def: GameDefinition; blocks: BlockRow[]; startsAt: number | null } | null>()
    const emissionOf = (n: number) => {
      if (!emissions.has(n)) {
        try {
          const row = catalog.emission(n)
          emissions.set(n, { row, def: catalog.definition(n), blocks: catalog.blocks(n), startsAt: row.starts_on ? Date.parse(`${row.starts_on}T00:00:00Z`) : null })
        } catch (e) {
          if (!(e instanceof AppError) || e.code !== 'NOT_FOUND') throw e
          emissions.set(n, null)
        }
      }
      return emissions.get(n)!
    }

    const fresh: GoodLine[] = []
    const idsSeen = new Map<string, number>()
    const unitsSeen = new Map<number, number>()
    let lines = 0
    let already = 0
    /** The zones of the serial's emission, or of CARATS when the serial names none (the full path's choice). */
    /** The serial read once per line: its unit, or why it is not a serial. */
    const unitOf = (serial: string): UnitId | SerialError => {
      try {
        return parseSerial(serial)
      } catch (e) {
        if (e instanceof SerialError) return e
        throw e
      }
    }
    /** The zones of the serial's emission, or of CARATS when the serial names none (the full path's choice). */
    const zonesOf = (id: UnitId | SerialError): Pick<GameDefinition, 'winningCells' | 'yoursCells'> =>
      (id instanceof SerialError ? null : emissionOf(id.emission)?.def) ?? { winningCells: 6, yoursCells: 24 }

    // 1. every line read: the usual lines by the fast reader (their plays packed), the others by JSON.parse and the schema
    const read: { n: number; l: FeedLineData; packed: GoodLine['play'] | undefined; unit?: UnitId | SerialError }[] = []
    let lineNo = 0
    // a byte order mark, which a decoder would drop
    let pos = content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf ? 3 : 0
    while (pos <= content.length) {
      let end = content.indexOf(0x0a, pos)
      if (end < 0) end = content.length
      const start = pos
      pos = end + 1
      lineNo++
      // the usual line starts with its brace; any other is decoded (blank, or for the full path)
      const fast = content[start] === 0x7b ? readFeedLineFast(content, start, end) : null
      if (fast === null && content.toString('utf8', start, end).trim() === '') continue
      lines++
      const n = lineNo
      if (fast) {
        if (fast.play === null) {
          read.push({ n, l: { ...fast, play: null }, packed: null })
          continue
        }
        const unit = unitOf(fast.serial)
        const def = zonesOf(unit)
        const packed = packFastPlay(fast.play, def.winningCells, def.yoursCells)
        if (packed) {
          read.push({ n, l: { ...fast, play: null }, packed, unit })
          continue
        }
      }
      let value: unknown
      try {
        value = JSON.parse(content.toString('utf8', start, end))
      } catch (e) {
        bad(n, `not valid JSON (${e instanceof Error ? e.message : String(e)})`)
        continue
      }
      const parsed = feedLineSchema.safeParse(value)
      if (!parsed.success) {
        for (const issue of parsed.error.issues) bad(n, describeZodIssue(issue, value))
        continue
      }
      read.push({ n, l: parsed.data, packed: undefined })
    }

    // the sales already recorded under the file's sale ids, in one query per chunk
    const recorded = new Map<string, StoredSale>()
    const ids: string[] = []
    for (const { l } of read) if (!SERIAL_SHAPE.test(l.saleId)) ids.push(l.saleId)
    for (let i = 0; i < ids.length; i += ID_CHUNK) {
      for (const row of byIds.all(JSON.stringify(ids.slice(i, i + ID_CHUNK))) as StoredSale[]) recorded.set(row.sale_id!, row)
    }

    // 2. every line on its own
    for (const { n, l, packed, unit } of read) {
      const before = problems.get(n)?.length ?? 0

      const earlier = idsSeen.get(l.saleId)
      if (earlier !== undefined) bad(n, `saleId ${l.saleId} appears twice in the file (first at line ${earlier})`)
      else idsSeen.set(l.saleId, n)

      const parsed = unit ?? unitOf(l.serial)
      const id = parsed instanceof SerialError ? null : parsed
      if (parsed instanceof SerialError) bad(n, `serial ${JSON.stringify(l.serial)}: ${parsed.message}`)

      const soldAt = toMillis(l.soldAt)
      if (Number.isNaN(soldAt)) bad(n, `soldAt ${JSON.stringify(l.soldAt)} is not an ISO 8601 date-time with a zone (e.g. 2025-03-01T12:30:00Z)`)
      else if (soldAt > now + FUTURE_TOLERANCE_MS) bad(n, `soldAt ${l.soldAt} is in the future (now is ${new Date(now).toISOString()})`)

      let play: GoodLine['play'] = null
      if (packed !== undefined) play = packed
      else if (l.play) {
        const p = l.play as Play
        let def: Pick<GameDefinition, 'winningCells' | 'yoursCells'> | null = id ? emissionOf(id.emission)?.def ?? null : null
        if (!def) def = { winningCells: 6, yoursCells: 24 }
        if (isValidPlayFast(p, def.winningCells, def.yoursCells) && fastEventKeys(l.play.events)) {
          play = { code: playCode(p), events: packEvents(p.events) }
        } else {
          const why = [...eventFieldProblems(l.play.events), ...validatePlay(p, def)]
          if (why.length) bad(n, `the play breaks the rules: ${why.join('; ')}`)
          else play = { code: playCode(p), events: packEvents(p.events) }
        }
      }

      if (!id) continue
      const e = emissionOf(id.emission)
      if (!e) {
        bad(n, `serial ${l.serial}: emission ${id.emission} does not exist`)
        continue
      }
      const blockSize = e.def.blockSize
      if (id.unit >= blockSize) {
        bad(n, `serial ${l.serial}: unit ${id.unit} is beyond the block's ${blockSize} units`)
        continue
      }
      const block = e.blocks[id.block - 1]
      if (!block) {
        bad(n, `serial ${l.serial}: emission ${id.emission} has no block ${id.block} (it has ${e.blocks.length})`)
        continue
      }
      if (l.stakeCents !== e.def.unitPriceCents) bad(n, `stakeCents must be the unit price, ${e.def.unitPriceCents}, not ${l.stakeCents}`)
      // the canonical serial: the line's own when written so (it passed parseSerial, check digit included)
      const serial = SERIAL_SHAPE.test(l.serial) ? l.serial : formatSerial(id, blockSize)
      const idIsSerial = SERIAL_SHAPE.test(l.saleId)
      if (idIsSerial && l.saleId !== serial) bad(n, `saleId ${l.saleId} has the shape of a serial, so it must be the line's own serial ${l.serial}`)
      if (!Number.isNaN(soldAt) && e.startsAt !== null && soldAt < e.startsAt) bad(n, `soldAt ${l.soldAt} is before emission ${id.emission} starts selling (${e.row.starts_on})`)
      const key = unitKey(id.emission, id.block, id.unit)

      // recorded before: the same sale again, or a conflict
      const prev = (idIsSerial ? null : recorded.get(l.saleId)) ?? null
      const onUnit = id.unit < block.units_sold ? ((byKey.get(key) as StoredSale | undefined) ?? null) : null
      const recordedAs = prev ?? (onUnit && onUnit.sale_id === null && l.saleId === serial ? onUnit : null)
      if (recordedAs) {
        const diff: string[] = []
        if (recordedAs.unit_key !== key) diff.push(`serial (recorded for ${formatSerial(splitUnitKey(recordedAs.unit_key), blockSize)})`)
        if (recordedAs.player !== l.player) diff.push('player')
        if (recordedAs.sold_at !== soldAt) diff.push('soldAt')
        if (recordedAs.stake_cents !== l.stakeCents) diff.push('stakeCents')
        if (!samePlay(recordedAs, play)) diff.push('play')
        if (diff.length) bad(n, `saleId ${l.saleId} is already recorded with other content (${diff.join(', ')} differ)`)
        else if ((problems.get(n)?.length ?? 0) === before) already++
        continue
      }
      if (onUnit) {
        bad(n, `unit ${l.serial} is already sold by sale ${onUnit.sale_id ?? l.serial}`)
        continue
      }
      const twin = unitsSeen.get(key)
      if (twin !== undefined) {
        bad(n, `unit ${l.serial} is also sold at line ${twin}`)
        continue
      }
      unitsSeen.set(key, n)
      if (e.row.status !== 'open') bad(n, `emission ${id.emission} is not open for sale: it is ${describeStatus(e.row.status)}`)
      else if (block.status !== 'verified') bad(n, `block ${id.emission}/${id.block} cannot sell: it is ${block.status === 'failed' ? 'failed its verification' : block.status}`)
      if ((problems.get(n)?.length ?? 0) > before) continue
      fresh.push({ line: n, saleId: l.saleId, serial, emission: id.emission, block: id.block, unit: id.unit, key, player: l.player, soldAt, stake: l.stakeCents, play })
    }
    if (lines === 0) throw new AppError('BAD_ARGUMENTS', 'the file holds no sales (no non-empty line)', { field: 'content' })

    // 3. across lines: for each emission, an unbroken run from its next unsold unit
    fresh.sort((a, b) => a.key - b.key)
    const byEmission = new Map<number, GoodLine[]>()
    for (const g of fresh) {
      const list = byEmission.get(g.emission)
      if (list) list.push(g)
      else byEmission.set(g.emission, [g])
    }
    for (const [emission, list] of byEmission) {
      const e = emissionOf(emission)!
      const size = e.def.blockSize
      const firstOpen = e.blocks.find((b) => b.units_sold < size)
      // the position of the next unit as block × size + unit
      let expected = firstOpen ? (firstOpen.block - 1) * size + firstOpen.units_sold : e.blocks.length * size
      for (const g of list) {
        const at = (g.block - 1) * size + g.unit
        if (at !== expected) {
          const want = expected >= e.blocks.length * size ? 'none: the emission is sold out' : formatSerial({ emission, block: Math.floor(expected / size) + 1, unit: expected % size }, size)
          bad(g.line, `unit ${g.serial} is out of order: units sell in index order within a block, blocks in order, and the next unit to sell here is ${want}, which the file does not carry`)
        }
        expected = at + 1
      }
    }

    // 4. all or nothing
    if (problems.size > 0) {
      const details: ImportLineError[] = [...problems.entries()].sort((a, b) => a[0] - b[0]).slice(0, MAX_LISTED).map(([line, reasons]) => ({ line, reason: reasons.join('; ') }))
      const first = details[0]
      const message = `${problems.size} bad line${problems.size > 1 ? 's' : ''} of ${lines}: nothing imported (first: line ${first.line}: ${first.reason})`
      throw new AppError('IMPORT_REJECTED', message, { details })
    }

    // every line checked, in this transaction: written per emission in unit order, as columns
    let imported = 0
    for (const [emission, list] of byEmission) {
      const count = list.length
      const players: string[] = new Array(count)
      const soldAt = new Float64Array(count)
      const codes = new Uint8Array(count)
      const ends = new Uint32Array(count)
      const saleIds: (string | null)[] = new Array(count)
      let size = 0
      for (const g of list) if (g.play) size += g.play.events.length
      const events = new Uint8Array(size)
      let o = 0
      for (let i = 0; i < count; i++) {
        const g = list[i]
        players[i] = g.player
        soldAt[i] = g.soldAt
        // a sale id shaped like a serial is the line's own serial (checked above): stored as the unit's
        saleIds[i] = SERIAL_SHAPE.test(g.saleId) ? null : g.saleId
        if (g.play) {
          codes[i] = g.play.code
          events.set(g.play.events, o)
          o += g.play.events.length
        } else codes[i] = NO_PLAY
        ends[i] = o
      }
      imported += sales.sellChecked(emission, { count, players, soldAt, codes, ends, events, saleIds })
    }
    const sha256 = createHash('sha256').update(content).digest('hex')
    const at = iso(clock())
    const batchId = Number(insertBatch.run(sha256, fileName ?? null, lines, imported, already, actor.name, at).lastInsertRowid)
    audit.record(actor.name, 'sales.import', `import:${batchId}`, {
      fileName: fileName ?? null, sha256, lines, imported, alreadyImported: already,
      firstSerial: fresh[0]?.serial ?? null, lastSerial: fresh[fresh.length - 1]?.serial ?? null,
    })
    return { lines, imported, alreadyImported: already }
  }

  // IMMEDIATE: the checks read the sold counts and recorded sales that the write then relies on
  const importTx = db.transaction(run)

  return {
    importContent(actor, content, fileName) {
      let bytes: Buffer
      if (typeof content === 'string') bytes = Buffer.from(content, 'utf8')
      else if (content instanceof Uint8Array) {
        // fatal, as a decoder would be: a file that is not UTF-8 is refused rather than read with replacement characters
        if (!isUtf8(content)) throw new AppError('BAD_ARGUMENTS', `${fileName ?? 'the file'} is not UTF-8 text: a sales feed is JSON lines in UTF-8`, { field: 'content' })
        bytes = Buffer.isBuffer(content) ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength)
      } else throw new AppError('BAD_ARGUMENTS', 'the feed must be text', { field: 'content' })
      try {
        return importTx.immediate(actor, bytes, fileName)
      } catch (e) {
        if (e instanceof AppError && e.code === 'IMPORT_REJECTED') {
          const details = e.extras.details as ImportLineError[]
          audit.record(actor.name, 'sales.import-rejected', 'import:rejected', { fileName: fileName ?? null, badLines: details.length, first: details[0] })
        }
        throw e
      }
    },
  }
}

function samePlay(stored: StoredSale, play: { code: number; events: Buffer } | null): boolean {
  if (play === null) return stored.play === null
  if (stored.play === null || stored.events === null) return false
  return stored.play === play.code && Buffer.compare(stored.events, play.events) === 0
}

/** A feed line for a sale, as the platform would send it (fixtures, benchmarks, the simulator's feeds). */
export function feedLine(sale: { saleId: string; serial: string; player: string; soldAt: number | string; stakeCents: number; play: Play | null }): string {
  return JSON.stringify({
    saleId: sale.saleId,
    serial: sale.serial,
    player: sale.player,
    soldAt: typeof sale.soldAt === 'number' ? new Date(sale.soldAt).toISOString() : sale.soldAt,
    stakeCents: sale.stakeCents,
    play: sale.play,
  })
}

