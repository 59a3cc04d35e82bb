/**
 * The careful import's checks of each line on its own, against the ledger: its fields, its play,
 * its unit, a sale recorded before under its id or on its unit. Every reason found is said (`bad`);
 * a line that passes claims its unit in `good` (lines.ts), for the checks across lines
 * (order.ts). The rules the streamed import also applies are asked of rules.ts.
 */
import { isoDateTimeShaped } from '../../contract/dates'
import { describePlayerIdProblem, describeTextProblem, playerIdProblem, type TextProblem } from '../../contract/text'
import { playProblems, type Play } from '../../../game-core/play'
import type { GameDefinition } from '../../../game-core/rules'
import { formatSerial, parseSerial, SerialError, type UnitId } from '../../../game-core/serial'
import { splitUnitKey, unitKey } from '../../ledger/unit-key'
import { isValidPlayFast, packEvents, playCode } from '../../ledger/play-codec'
import type { BlockRow } from '../catalog'
import { SALE_CLOCK_SKEW_MS, toMillis } from '../common'
import { describeStatus } from '../emissions'
import {
  samePlay,
  type FeedLine,
  type GoodLines,
  type PackedPlay,
  type PlayBytes,
  type ReadLine,
  type StoredSale,
} from './lines'
import {
  eventFieldProblems,
  fastEventKeys,
  problem,
  recordedOtherProblem,
  type Problem,
  type RecordedField,
} from './problems'
import {
  latestSaleMs,
  SERIAL_SHAPE,
  sellingFault,
  soldAlready,
  soldTooEarly,
  stakeFits,
  unitFault,
  type EmissionInfo,
} from './rules'

/** One careful import under way: what it has read, and every reason it has found, by line. */
export interface CarefulRun {
  now: number
  problems: Map<number, Problem[]>
  emissionOf: (n: number) => EmissionInfo | null
  plays: PlayBytes
  good: GoodLines
  /** Each sale id's first line. */
  idsSeen: Map<string, number>
  lines: number
  already: number
  /** Bad lines whose unit cannot be read (not JSON, malformed, a mistyped serial): each may be a unit that a gap lacks. */
  unplaced: number
}

/** The sales recorded before that a chunk's lines may repeat: under their sale ids, and on the units they name. */
export interface Recorded {
  byId: Map<string, StoredSale>
  onUnit: Map<number, StoredSale>
}

/** A line with a unit of an emission that has it: what the checks against the ledger look at. */
interface Placed {
  n: number
  l: FeedLine
  id: UnitId
  e: EmissionInfo
  block: BlockRow
  /** the canonical serial: the line's own when written so (it passed parseSerial, check digit included) */
  serial: string
  soldAt: number
  play: PackedPlay | null
  /** the line's reasons before its checks */
  before: number
}

export function bad(run: CarefulRun, line: number, p: Problem): void {
  const list = run.problems.get(line)
  if (list) list.push(p)
  else run.problems.set(line, [p])
}

const problemCount = (run: CarefulRun, line: number) => run.problems.get(line)?.length ?? 0

/** The serial read once per line: its unit, or why it is not a serial. */
export function unitOf(serial: string): UnitId | SerialError {
  try {
    return parseSerial(serial)
  } catch (e) {
    if (e instanceof SerialError) return e
    throw e
  }
}

/** The zones of the serial's emission, or of CARATS when the serial names none (the full path's choice). */
export function zonesOf(
  run: CarefulRun,
  id: UnitId | SerialError,
): Pick<GameDefinition, 'winningCells' | 'yoursCells'> {
  return (id instanceof SerialError ? null : run.emissionOf(id.emission)?.def) ?? { winningCells: 6, yoursCells: 24 }
}

/** The emission's block that holds a unit sold already, or null (no such unit, or not sold yet). */
export function soldBlockOf(run: CarefulRun, id: UnitId): BlockRow | null {
  const e = run.emissionOf(id.emission)
  const block = e && unitFault(e, id.block, id.unit) === null ? e.blocks[id.block - 1] : null
  return block && soldAlready(block, id) ? block : null
}

/**
 * A line refused by its schema, whose serial still names a unit that is for sale: it holds
 * that unit's place for the order's check (refused already, it is never written). One whose
 * serial cannot be read may be any unit: it counts among the unplaced lines.
 */
export function holdPlace(run: CarefulRun, n: number, serial: string): void {
  const id = unitOf(serial)
  if (id instanceof SerialError) {
    run.unplaced++
    return
  }
  const e = run.emissionOf(id.emission)
  // a unit that does not exist, or one sold already, is no unit the file may lack
  if (!e || unitFault(e, id.block, id.unit) !== null || soldAlready(e.blocks[id.block - 1], id)) return
  run.good.add(
    n,
    '',
    formatSerial(id, e.def.blockSize),
    id,
    unitKey(id.emission, id.block, id.unit),
    '',
    NaN,
    null,
    false,
    null,
  )
}

/** A line read whole, on its own and against the ledger; a line that passes claims its unit. */
export function checkLine(
  run: CarefulRun,
  { n, l, packed, unit }: ReadLine & { l: FeedLine },
  recorded: Recorded,
): void {
  const before = problemCount(run, n)
  noteSaleId(run, n, l.saleId)
  const parsed = unit ?? unitOf(l.serial)
  if (parsed instanceof SerialError) {
    bad(run, n, problem('SERIAL', { serial: l.serial }, `serial ${JSON.stringify(l.serial)}: ${parsed.message}`))
    run.unplaced++
  }
  checkTexts(run, n, l)
  const soldAt = checkSoldAt(run, n, l.soldAt)
  const play = packed !== undefined ? packed : playOf(run, n, l, parsed)
  if (parsed instanceof SerialError) return
  const e = run.emissionOf(parsed.emission)
  if (!e)
    return bad(
      run,
      n,
      problem(
        'EMISSION_UNKNOWN',
        { serial: l.serial, emission: parsed.emission },
        `serial ${l.serial}: emission ${parsed.emission} does not exist`,
      ),
    )
  const block = blockOf(run, n, l.serial, e, parsed)
  if (!block) return
  const serial = SERIAL_SHAPE.test(l.serial) ? l.serial : formatSerial(parsed, e.def.blockSize)
  const line: Placed = { n, l, id: parsed, e, block, serial, soldAt, play, before }
  checkAgainstEmission(run, line)
  const onUnit = soldAlready(block, parsed)
    ? (recorded.onUnit.get(unitKey(parsed.emission, parsed.block, parsed.unit)) ?? null)
    : null
  const prev = (SERIAL_SHAPE.test(l.saleId) ? null : recorded.byId.get(l.saleId)) ?? null
  const recordedAs = prev ?? (onUnit && onUnit.sale_id === null && l.saleId === serial ? onUnit : null)
  if (recordedAs) return judgeRecorded(run, line, recordedAs)
  if (onUnit)
    return bad(
      run,
      n,
      problem(
        'UNIT_SOLD',
        { serial: l.serial, sale: onUnit.sale_id ?? l.serial },
        `unit ${l.serial} is already sold by sale ${onUnit.sale_id ?? l.serial}`,
      ),
    )
  claimUnit(run, line)
}

function noteSaleId(run: CarefulRun, n: number, saleId: string): void {
  const earlier = run.idsSeen.get(saleId)
  if (earlier !== undefined)
    bad(
      run,
      n,
      problem(
        'SALE_ID_TWICE',
        { saleId, first: earlier },
        `saleId ${saleId} appears twice in the file (first at line ${earlier})`,
      ),
    )
  else run.idsSeen.set(saleId, n)
}

/** The line's player and sale ids under the text rule (contract/text.ts), composed form required: both are stored. */
function checkTexts(run: CarefulRun, n: number, l: FeedLine): void {
  const player = playerIdProblem(l.player)
  if (player) bad(run, n, problem('PLAYER_CHARS', textParams(player), `player: ${describePlayerIdProblem(player)}`))
  const saleId = playerIdProblem(l.saleId)
  if (saleId)
    bad(run, n, problem('SALE_ID_CHARS', textParams(saleId), `saleId: ${describeTextProblem(saleId, 'a sale id')}`))
}

const textParams = (p: TextProblem) => ({ char: p.char, position: p.position, problem: p.kind })

/** The line's sale time in milliseconds (NaN when it is not one), its reasons said. */
function checkSoldAt(run: CarefulRun, n: number, text: string): number {
  const soldAt = toMillis(text)
  if (Number.isNaN(soldAt)) {
    if (isoDateTimeShaped(text))
      bad(
        run,
        n,
        problem(
          'SOLD_AT_DATE',
          { soldAt: text },
          `soldAt ${JSON.stringify(text)} names a day or a time that does not exist`,
        ),
      )
    else
      bad(
        run,
        n,
        problem(
          'SOLD_AT_FORMAT',
          { soldAt: text },
          `soldAt ${JSON.stringify(text)} is not an ISO 8601 date-time with a zone (e.g. 2025-03-01T12:30:00Z)`,
        ),
      )
  } else if (soldAt > latestSaleMs(run.now)) {
    const at = new Date(run.now).toISOString()
    bad(
      run,
      n,
      problem(
        'SOLD_AT_FUTURE',
        { soldAt: text, now: at, skewMinutes: SALE_CLOCK_SKEW_MS / 60_000 },
        `soldAt ${text} is in the future (now is ${at}; clocks may differ by up to ${SALE_CLOCK_SKEW_MS / 60_000} minutes)`,
      ),
    )
  }
  return soldAt
}

/** The play of a line that the full path read, packed, or null (none, or one that breaks the rules: said). */
function playOf(run: CarefulRun, n: number, l: FeedLine, parsed: UnitId | SerialError): PackedPlay | null {
  if (!l.play) return null
  const p = l.play as Play
  const def = zonesOf(run, parsed)
  if (isValidPlayFast(p, def.winningCells, def.yoursCells) && fastEventKeys(l.play.events))
    return run.plays.append(playCode(p), packEvents(p.events))
  const why: Problem[] = [...eventFieldProblems(l.play.events), ...playProblems(p, def)]
  // one sentence in English: "the play breaks the rules: a; b"
  why.forEach((w, i) => bad(run, n, i === 0 ? { ...w, text: `the play breaks the rules: ${w.text}` } : w))
  return why.length === 0 ? run.plays.append(playCode(p), packEvents(p.events)) : null
}

/** The line's block, or null when the emission has no such unit (said). */
function blockOf(run: CarefulRun, n: number, serial: string, e: EmissionInfo, id: UnitId): BlockRow | null {
  const fault = unitFault(e, id.block, id.unit)
  const size = e.def.blockSize
  if (fault === 'UNIT_BEYOND')
    bad(
      run,
      n,
      problem(
        'UNIT_BEYOND',
        { serial, unit: id.unit, size },
        `serial ${serial}: unit ${id.unit} is beyond the block's ${size} units`,
      ),
    )
  else if (fault === 'BLOCK_UNKNOWN') {
    const blocks = e.blocks.length
    bad(
      run,
      n,
      problem(
        'BLOCK_UNKNOWN',
        { serial, emission: id.emission, block: id.block, blocks },
        `serial ${serial}: emission ${id.emission} has no block ${id.block} (it has ${blocks})`,
      ),
    )
  }
  return fault === null ? e.blocks[id.block - 1] : null
}

/** The line's stake, sale id and sale time against its emission. */
function checkAgainstEmission(run: CarefulRun, { n, l, id, e, serial, soldAt }: Placed): void {
  const price = e.def.unitPriceCents
  if (!stakeFits(e, l.stakeCents))
    bad(
      run,
      n,
      problem(
        'STAKE',
        { expectedCents: price, gotCents: l.stakeCents },
        `stakeCents must be the unit price, ${price}, not ${l.stakeCents}`,
      ),
    )
  if (SERIAL_SHAPE.test(l.saleId) && l.saleId !== serial)
    bad(
      run,
      n,
      problem(
        'SALE_ID_SERIAL',
        { saleId: l.saleId, serial: l.serial },
        `saleId ${l.saleId} has the shape of a serial, so it must be the line's own serial ${l.serial}`,
      ),
    )
  if (Number.isNaN(soldAt) || !soldTooEarly(e, soldAt)) return
  if (e.row.starts_on !== null)
    bad(
      run,
      n,
      problem(
        'SOLD_AT_EARLY',
        { soldAt: l.soldAt, emission: id.emission, startsOn: e.row.starts_on },
        `soldAt ${l.soldAt} is before emission ${id.emission} starts selling (${e.row.starts_on})`,
      ),
    )
  else
    bad(
      run,
      n,
      problem(
        'SOLD_AT_BEFORE_CREATION',
        { soldAt: l.soldAt, emission: id.emission, createdAt: e.row.created_at },
        `soldAt ${l.soldAt} is before emission ${id.emission} was created (${e.row.created_at}), and it has no first sale day`,
      ),
    )
}

/** A sale recorded before under the line's id (or on its unit, as its serial): the same sale again, or a conflict. */
function judgeRecorded(run: CarefulRun, { n, l, id, e, soldAt, play, before }: Placed, recordedAs: StoredSale): void {
  const diff: RecordedField[] = []
  const elsewhere = recordedAs.unit_key !== unitKey(id.emission, id.block, id.unit)
  if (elsewhere) diff.push('serial')
  if (recordedAs.player !== l.player) diff.push('player')
  if (recordedAs.sold_at !== soldAt) diff.push('soldAt')
  if (recordedAs.stake_cents !== l.stakeCents) diff.push('stakeCents')
  if (!samePlay(recordedAs, play, run.plays)) diff.push('play')
  if (diff.length)
    bad(
      run,
      n,
      recordedOtherProblem(
        l.saleId,
        diff,
        elsewhere ? formatSerial(splitUnitKey(recordedAs.unit_key), e.def.blockSize) : null,
      ),
    )
  else if (problemCount(run, n) === before) run.already++
}

/** The line claims its unit (a second line on the same unit is found once all are read); one its unit's state refuses says so then. */
function claimUnit(run: CarefulRun, { n, l, id, e, block, serial, soldAt, play, before }: Placed): void {
  const fault = sellingFault(e, block)
  let refusal: Problem | null = null
  if (fault === 'NOT_OPEN')
    refusal = problem(
      'NOT_OPEN',
      { emission: id.emission, status: e.row.status },
      `emission ${id.emission} is not open for sale: it is ${describeStatus(e.row.status)}`,
    )
  else if (fault === 'BLOCK_NOT_SELLING') {
    const how = block.status === 'failed' ? 'failed its verification' : block.status
    refusal = problem(
      'BLOCK_NOT_SELLING',
      { emission: id.emission, block: id.block, status: block.status },
      `block ${id.emission}/${id.block} cannot sell: it is ${how}`,
    )
  }
  const key = unitKey(id.emission, id.block, id.unit)
  run.good.add(
    n,
    l.saleId,
    serial,
    id,
    key,
    l.player,
    soldAt,
    play,
    problemCount(run, n) === before && refusal === null,
    refusal,
  )
}
