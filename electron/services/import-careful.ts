/**
 * The careful import: every line read on its own (the usual lines by the fast reader, the others
 * by JSON.parse and the schema, which say what is wrong), checked against the ledger, then
 * checked across lines (import-order.ts). It says every bad line with all its reasons, or
 * writes every line; what it stores is what the streamed import (import-stream.ts) stores.
 */
import { isoDateTimeShaped } from '../contract/dates'
import { AppError, because } from '../contract/errors'
import { describePlayerIdProblem, playerIdProblem } from '../contract/player-id'
import type { ImportResult } from '../contract/types'
import { playProblems, type Play } from '../../game-core/play'
import type { GameDefinition } from '../../game-core/rules'
import { formatSerial, parseSerial, SerialError, type UnitId } from '../../game-core/serial'
import type { Db } from '../ledger/db'
import { jsonValues } from '../ledger/dialect'
import { splitUnitKey, unitKey } from '../ledger/migrations'
import { isValidPlayFast, packEvents, playCode } from '../ledger/play-codec'
import type { Catalog } from './catalog'
import { type Clock, SALE_CLOCK_SKEW_MS, saleFloorMs, toMillis } from './common'
import { describeStatus } from './emissions'
import { fastPlayCode, packFastPlayInto, readFeedLineFast } from './feed-line'
import type { ImportOutcome } from './import-history'
import { GoodLines, PlayBytes, samePlay, SERIAL_SHAPE, type FastLine, type PackedPlay, type ReadLine, type StoredSale } from './import-lines'
import { checkOrder, claimUnits, type EmissionInfo } from './import-order'
import { describeZodIssue, eventFieldProblems, fastEventKeys, feedLineSchema, jsonProblem, problem, recordedOtherProblem, type Problem, type RecordedField } from './import-problems'
import type { SalesService } from './sales'

/** Sale ids looked up in one query. */
const ID_CHUNK = 5000

export interface CarefulDeps {
  db: Db
  clock: Clock
  catalog: Catalog
  sales: SalesService
}

/** A feed refused for its lines: how many it has, and each bad line's reasons. */
export interface LineRefusal {
  refused: { lines: number; problems: Map<number, Problem[]> }
}

/** The careful import of a feed (UTF-8, checked before), in the caller's transaction: written whole, or its bad lines. */
export type CarefulImport = (content: Buffer) => ImportOutcome | LineRefusal

/** The serial read once per line: its unit, or why it is not a serial. */
function unitOf(serial: string): UnitId | SerialError {
  try {
    return parseSerial(serial)
  } catch (e) {
    if (e instanceof SerialError) return e
    throw e
  }
}

/** Each emission and its blocks, read once per import (null: no such emission). */
function emissionCache(catalog: Catalog): (n: number) => EmissionInfo | null {
  const emissions = new Map<number, EmissionInfo | null>()
  return (n) => {
    if (!emissions.has(n)) {
      try {
        const row = catalog.emission(n)
        emissions.set(n, { row, def: catalog.definition(n), blocks: catalog.blocks(n), floor: saleFloorMs(row) })
      } catch (e) {
        if (!(e instanceof AppError) || e.code !== 'NOT_FOUND') throw e
        emissions.set(n, null)
      }
    }
    return emissions.get(n)!
  }
}

export function createCarefulImport({ db, clock, catalog, sales }: CarefulDeps): CarefulImport {
  const byIds = db.prepare(`SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events
                            FROM sales s JOIN players p ON p.id = s.player_id WHERE s.sale_id IN (SELECT value FROM ${jsonValues(db)})`)
  // the units a chunk's lines name, read in one query: on PostgreSQL each statement is a round trip
  const byKeys = db.prepare(`SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.play, s.events
                            FROM sales s JOIN players p ON p.id = s.player_id
                            WHERE s.unit_key IN (SELECT CAST(value AS BIGINT) FROM ${jsonValues(db)})`)

  return function careful(content: Buffer): ImportOutcome | LineRefusal {
    const now = clock().getTime()
    const problems = new Map<number, Problem[]>()
    const bad = (line: number, p: Problem) => {
      const list = problems.get(line)
      if (list) list.push(p)
      else problems.set(line, [p])
    }

    const emissionOf = emissionCache(catalog)

    // room for as many lines as the file has line breaks, and one
    let breaks = 0
    for (let at = content.indexOf(0x0a); at >= 0; at = content.indexOf(0x0a, at + 1)) breaks++
    // a packed event takes 6 bytes, and at least 40 in JSON: room for the usual plays from the start
    const plays = new PlayBytes(Math.ceil(content.length / 6) + 64 * 6)
    const good = new GoodLines(breaks + 1, plays)
    const idsSeen = new Map<string, number>()
    let lines = 0
    let already = 0
    /** Bad lines whose unit cannot be read (not JSON, malformed, a mistyped serial): each may be a unit that a gap lacks. */
    let unplaced = 0
    /** The zones of the serial's emission, or of CARATS when the serial names none (the full path's choice). */
    const zonesOf = (id: UnitId | SerialError): Pick<GameDefinition, 'winningCells' | 'yoursCells'> =>
      (id instanceof SerialError ? null : emissionOf(id.emission)?.def) ?? { winningCells: 6, yoursCells: 24 }

    /**
     * A line refused by its schema, whose serial still names a unit that is for sale: it holds
     * that unit's place for the order's check (refused already, it is never written). One whose
     * serial cannot be read may be any unit: it counts among the unplaced lines.
     */
    const holdPlace = (n: number, serial: string) => {
      const id = unitOf(serial)
      if (id instanceof SerialError) {
        unplaced++
        return
      }
      const e = emissionOf(id.emission)
      const block = e?.blocks[id.block - 1]
      // a unit that does not exist, or one sold already, is no unit the file may lack
      if (!e || !block || id.unit >= e.def.blockSize || id.unit < block.units_sold) return
      good.add(n, '', formatSerial(id, e.def.blockSize), id, unitKey(id.emission, id.block, id.unit), '', NaN, null, false, null)
    }

    /** The recorded sales on the units that a chunk's lines name, among those already sold. */
    const soldUnitsOf = (chunk: ReadLine[]): Map<number, StoredSale> => {
      const keys: number[] = []
      for (const { l, unit } of chunk) {
        if (l === null) continue
        const parsed = unit ?? unitOf(l.serial)
        if (parsed instanceof SerialError) continue
        const block = emissionOf(parsed.emission)?.blocks[parsed.block - 1]
        if (block && parsed.unit < block.units_sold) keys.push(unitKey(parsed.emission, parsed.block, parsed.unit))
      }
      const found = new Map<number, StoredSale>()
      if (keys.length) for (const row of byKeys.all(JSON.stringify(keys)) as StoredSale[]) found.set(row.unit_key, row)
      return found
    }

    /** Every line on its own, a chunk of lines at a time (the sales already recorded under their ids read in one query). */
    const checkLines = (chunk: ReadLine[]) => {
      const recorded = new Map<string, StoredSale>()
      const ids: string[] = []
      for (const { l } of chunk) if (l !== null && !SERIAL_SHAPE.test(l.saleId)) ids.push(l.saleId)
      if (ids.length) for (const row of byIds.all(JSON.stringify(ids)) as StoredSale[]) recorded.set(row.sale_id!, row)
      const onUnits = soldUnitsOf(chunk)

      for (const { n, l, packed, unit, held } of chunk) {
        if (l === null) {
          holdPlace(n, held!)
          continue
        }
        const before = problems.get(n)?.length ?? 0

        const earlier = idsSeen.get(l.saleId)
        if (earlier !== undefined) bad(n, problem('SALE_ID_TWICE', { saleId: l.saleId, first: earlier }, `saleId ${l.saleId} appears twice in the file (first at line ${earlier})`))
        else idsSeen.set(l.saleId, n)

        const parsed = unit ?? unitOf(l.serial)
        const id = parsed instanceof SerialError ? null : parsed
        if (parsed instanceof SerialError) {
          bad(n, problem('SERIAL', { serial: l.serial }, `serial ${JSON.stringify(l.serial)}: ${parsed.message}`))
          unplaced++
        }

        const playerProblem = playerIdProblem(l.player)
        if (playerProblem) bad(n, problem('PLAYER_CHARS', playerProblem, `player: ${describePlayerIdProblem(playerProblem)}`))

        const soldAt = toMillis(l.soldAt)
        if (Number.isNaN(soldAt)) {
          if (isoDateTimeShaped(l.soldAt)) bad(n, problem('SOLD_AT_DATE', { soldAt: l.soldAt }, `soldAt ${JSON.stringify(l.soldAt)} names a day or a time that does not exist`))
          else bad(n, problem('SOLD_AT_FORMAT', { soldAt: l.soldAt }, `soldAt ${JSON.stringify(l.soldAt)} is not an ISO 8601 date-time with a zone (e.g. 2025-03-01T12:30:00Z)`))
        } else if (soldAt > now + SALE_CLOCK_SKEW_MS) {
          const at = new Date(now).toISOString()
          bad(n, problem('SOLD_AT_FUTURE', { soldAt: l.soldAt, now: at, skewMinutes: SALE_CLOCK_SKEW_MS / 60_000 }, `soldAt ${l.soldAt} is in the future (now is ${at}; clocks may differ by up to ${SALE_CLOCK_SKEW_MS / 60_000} minutes)`))
        }

        let play: PackedPlay | null = null
        if (packed !== undefined) play = packed
        else if (l.play) {
          const p = l.play as Play
          const def = zonesOf(parsed)
          if (isValidPlayFast(p, def.winningCells, def.yoursCells) && fastEventKeys(l.play.events)) {
            play = plays.append(playCode(p), packEvents(p.events))
          } else {
            const why: Problem[] = [...eventFieldProblems(l.play.events), ...playProblems(p, def)]
            // one sentence in English: "the play breaks the rules: a; b"
            why.forEach((w, i) => bad(n, i === 0 ? { ...w, text: `the play breaks the rules: ${w.text}` } : w))
            if (why.length === 0) play = plays.append(playCode(p), packEvents(p.events))
          }
        }

        if (!id) continue
        const e = emissionOf(id.emission)
        if (!e) {
          bad(n, problem('EMISSION_UNKNOWN', { serial: l.serial, emission: id.emission }, `serial ${l.serial}: emission ${id.emission} does not exist`))
          continue
        }
        const blockSize = e.def.blockSize
        if (id.unit >= blockSize) {
          bad(n, problem('UNIT_BEYOND', { serial: l.serial, unit: id.unit, size: blockSize }, `serial ${l.serial}: unit ${id.unit} is beyond the block's ${blockSize} units`))
          continue
        }
        const block = e.blocks[id.block - 1]
        if (!block) {
          bad(n, problem('BLOCK_UNKNOWN', { serial: l.serial, emission: id.emission, block: id.block, blocks: e.blocks.length }, `serial ${l.serial}: emission ${id.emission} has no block ${id.block} (it has ${e.blocks.length})`))
          continue
        }
        if (l.stakeCents !== e.def.unitPriceCents) bad(n, problem('STAKE', { expectedCents: e.def.unitPriceCents, gotCents: l.stakeCents }, `stakeCents must be the unit price, ${e.def.unitPriceCents}, not ${l.stakeCents}`))
        // the canonical serial: the line's own when written so (it passed parseSerial, check digit included)
        const serial = SERIAL_SHAPE.test(l.serial) ? l.serial : formatSerial(id, blockSize)
        const idIsSerial = SERIAL_SHAPE.test(l.saleId)
        if (idIsSerial && l.saleId !== serial) bad(n, problem('SALE_ID_SERIAL', { saleId: l.saleId, serial: l.serial }, `saleId ${l.saleId} has the shape of a serial, so it must be the line's own serial ${l.serial}`))
        if (!Number.isNaN(soldAt) && soldAt < e.floor) {
          if (e.row.starts_on !== null) bad(n, problem('SOLD_AT_EARLY', { soldAt: l.soldAt, emission: id.emission, startsOn: e.row.starts_on }, `soldAt ${l.soldAt} is before emission ${id.emission} starts selling (${e.row.starts_on})`))
          else bad(n, problem('SOLD_AT_BEFORE_CREATION', { soldAt: l.soldAt, emission: id.emission, createdAt: e.row.created_at }, `soldAt ${l.soldAt} is before emission ${id.emission} was created (${e.row.created_at}), and it has no first sale day`))
        }
        const key = unitKey(id.emission, id.block, id.unit)

        // recorded before: the same sale again, or a conflict
        const prev = (idIsSerial ? null : recorded.get(l.saleId)) ?? null
        const onUnit = id.unit < block.units_sold ? (onUnits.get(key) ?? null) : null
        const recordedAs = prev ?? (onUnit && onUnit.sale_id === null && l.saleId === serial ? onUnit : null)
        if (recordedAs) {
          const diff: RecordedField[] = []
          const elsewhere = recordedAs.unit_key !== key
          if (elsewhere) diff.push('serial')
          if (recordedAs.player !== l.player) diff.push('player')
          if (recordedAs.sold_at !== soldAt) diff.push('soldAt')
          if (recordedAs.stake_cents !== l.stakeCents) diff.push('stakeCents')
          if (!samePlay(recordedAs, play, plays)) diff.push('play')
          if (diff.length) bad(n, recordedOtherProblem(l.saleId, diff, elsewhere ? formatSerial(splitUnitKey(recordedAs.unit_key), blockSize) : null))
          else if ((problems.get(n)?.length ?? 0) === before) already++
          continue
        }
        if (onUnit) {
          bad(n, problem('UNIT_SOLD', { serial: l.serial, sale: onUnit.sale_id ?? l.serial }, `unit ${l.serial} is already sold by sale ${onUnit.sale_id ?? l.serial}`))
          continue
        }
        // the line claims its unit; a second line on the same unit is found once all are read
        let refusal: Problem | null = null
        if (e.row.status !== 'open') refusal = problem('NOT_OPEN', { emission: id.emission, status: e.row.status }, `emission ${id.emission} is not open for sale: it is ${describeStatus(e.row.status)}`)
        else if (block.status !== 'verified') refusal = problem('BLOCK_NOT_SELLING', { emission: id.emission, block: id.block, status: block.status }, `block ${id.emission}/${id.block} cannot sell: it is ${block.status === 'failed' ? 'failed its verification' : block.status}`)
        good.add(n, l.saleId, serial, id, key, l.player, soldAt, play, (problems.get(n)?.length ?? 0) === before && refusal === null, refusal)
      }
    }

    // 1. every line read: the usual lines by the fast reader (their plays packed), the others by JSON.parse and the schema
    let chunk: ReadLine[] = []
    let lineNo = 0
    // a byte order mark, which a decoder would drop
    let pos = content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf ? 3 : 0
    while (pos <= content.length) {
      let end = content.indexOf(0x0a, pos)
      if (end < 0) end = content.length
      const start = pos
      pos = end + 1
      lineNo++
      if (chunk.length >= ID_CHUNK) {
        checkLines(chunk)
        chunk = []
      }
      // the usual line starts with its brace; any other is decoded (blank, or for the full path)
      const fast = content[start] === 0x7b ? readFeedLineFast(content, start, end) : null
      if (fast === null && content.toString('utf8', start, end).trim() === '') continue
      lines++
      const n = lineNo
      if (fast) {
        if (fast.play === null) {
          chunk.push({ n, l: fast as FastLine, packed: null })
          continue
        }
        const unit = unitOf(fast.serial)
        const def = zonesOf(unit)
        // at most 64 events of 6 bytes
        const length = packFastPlayInto(fast.play, def.winningCells, def.yoursCells, plays.room(64 * 6), plays.length)
        if (length >= 0) {
          const packed = { code: fastPlayCode(fast.play), from: plays.length, to: plays.length + length }
          plays.length += length
          fast.play = null
          chunk.push({ n, l: fast as FastLine, packed, unit })
          continue
        }
      }
      let value: unknown
      const lineText = content.toString('utf8', start, end)
      try {
        value = JSON.parse(lineText)
      } catch (e) {
        bad(n, jsonProblem(e, lineText))
        unplaced++
        continue
      }
      const parsed = feedLineSchema.safeParse(value)
      if (!parsed.success) {
        for (const issue of parsed.error.issues) bad(n, describeZodIssue(issue, value))
        const serial = value !== null && typeof value === 'object' ? (value as { serial?: unknown }).serial : undefined
        if (typeof serial === 'string') chunk.push({ n, l: null, packed: undefined, held: serial })
        else unplaced++
        continue
      }
      chunk.push({ n, l: parsed.data, packed: undefined })
    }
    checkLines(chunk)
    if (lines === 0) throw new AppError('BAD_ARGUMENTS', 'the file holds no sales (no non-empty line): choose the sales feed itself', { field: 'content', ...because('FEED_EMPTY') })

    const { runs, kept, placed } = claimUnits(good, bad)
    checkOrder(good, placed, unplaced, emissionOf, bad)

    // all or nothing
    if (problems.size > 0) return { refused: { lines, problems } }

    // every line checked, in this transaction: written per emission in unit order, as columns
    let imported = 0
    for (const { emission, from, to } of runs) imported += sales.sellChecked(emission, good.columns(kept, from, to))
    const counts: ImportResult = { lines, imported, alreadyImported: already }
    return { counts, sha256: null, firstSerial: kept.length ? good.serial[kept[0]] : null, lastSerial: kept.length ? good.serial[kept[kept.length - 1]] : null }
  }
}
