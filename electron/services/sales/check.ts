/**
 * The general batch (sellBatch): each sale of outside input checked in order against the
 * emission's cursors (state.ts), the units taken, and the batch handed to the writes
 * (batch.ts) only when every sale is good. A sale's faults are all listed when the
 * importer asks (collectErrors); the unit is taken even for a bad sale, so that the sales after
 * it are judged in order.
 */
import { AppError } from '../../contract/errors'
import { describePlayerIdProblem, playerIdProblem } from '../../contract/text'
import type { Play } from '../../../game-core/play'
import { validatePlay } from '../../../game-core/play'
import { parseSerial, SerialError } from '../../../game-core/serial'
import type { GameDefinition } from '../../../game-core/rules'
import { unitKey } from '../../ledger/unit-key'
import { isValidPlayFast, packEvents, playCode } from '../../ledger/play-codec'
import { SALE_CLOCK_SKEW_MS, toMillis } from '../common'
import type { BatchOptions, BatchResult, SaleInput, SaleRecord, SalesContext } from './context'
import {
  advance,
  type BlockCursor,
  cannotSell,
  type EmissionState,
  loadEmission,
  MAX_TEXT,
  notOpen,
  type PendingSale,
  prizeOf,
  SERIAL_SHAPE,
  serialOf,
  soldOut,
  takeTier,
  tooEarly,
  beforeCreation,
} from './state'

/** A unit named by its serial. */
interface NamedUnit {
  emission: number
  block: number
  unit: number
}

interface StoredSale {
  unit_key: number
  player: string
  sold_at: number
  stake_cents: number
  play: number | null
  events: Buffer | null
}

/** One general batch's progress through its sales. */
interface BatchRun {
  opts: BatchOptions
  wantRecords: boolean
  states: Map<number, EmissionState>
  errors: { index: number; code: string; reason: string }[]
  pending: PendingSale[]
  records: SaleRecord[]
  /** the batch's sale ids, each with the index of its sale */
  batchIds: Map<string, number>
  alreadyRecorded: number
  /** The current sale's faults (one list per batch, emptied for each sale: none is made per good sale). */
  problems: AppError[] | null
  /** The latest sale time taken: the clock, and the skew allowed between clocks. */
  latest: number
}

/** The batch's sales checked and, when all are good, written (inside the caller's transaction). */
export function runBatch(ctx: SalesContext, inputs: readonly SaleInput[], opts: BatchOptions): BatchResult {
  const r: BatchRun = {
    opts,
    wantRecords: opts.records !== false,
    states: new Map(),
    errors: [],
    pending: [],
    records: [],
    batchIds: new Map(),
    alreadyRecorded: 0,
    problems: null,
    latest: ctx.clock().getTime() + SALE_CLOCK_SKEW_MS,
  }
  for (let index = 0; index < inputs.length; index++) {
    r.problems = null
    try {
      checkSale(ctx, r, inputs[index], index)
    } catch (e) {
      collect(r, e, index)
    }
  }
  if (r.errors.length) return { ok: false, errors: r.errors }
  ctx.batches.write(r.pending, r.states)
  return { ok: true, count: r.pending.length, sold: r.records, alreadyRecorded: r.alreadyRecorded }
}

/** The sale's faults into the batch's errors when the caller collects them, else thrown. */
function collect(r: BatchRun, e: unknown, index: number): void {
  if (!(e instanceof AppError) || !r.opts.collectErrors) throw e
  r.errors.push({ index, code: e.code, reason: e.message })
  for (const p of r.problems?.slice(1) ?? []) r.errors.push({ index, code: p.code, reason: p.message })
}

function bad(r: BatchRun, code: AppError['code'], message: string, field?: string): void {
  ;(r.problems ??= []).push(new AppError(code, message, { field }))
}

/** One sale: refused (thrown), skipped as recorded before, or its unit taken into the batch. */
function checkSale(ctx: SalesContext, r: BatchRun, input: SaleInput, index: number): void {
  const named = namedUnit(input)
  const emission = emissionOf(input, named)
  let st = r.states.get(emission)
  if (!st) r.states.set(emission, (st = loadEmission(ctx.catalog, emission, ctx.db)))
  const saleId = input.saleId
  if (saleId !== undefined && recordedBefore(ctx, r, input, named, st.def)) {
    r.alreadyRecorded++
    r.batchIds.set(saleId, index)
    return
  }
  const cur = nextCursor(ctx, r, st, input, named)
  const unit = cur.sold
  const stake = checkStake(r, st.def, input.stakeCents)
  checkPlayer(r, input.player)
  const soldAt = checkSoldAt(ctx, r, st, input.soldAt)
  const play = playOf(r, st.def, input)
  const storedId = storedIdOf(r, st, cur, unit, saleId)

  // the unit is taken even when the sale is bad, so the sales after it are judged in order
  advance(st, cur)
  if (r.problems) throw r.problems[0]
  if (saleId !== undefined) r.batchIds.set(saleId, index)

  const tier = takeTier(ctx.catalog, st, cur, unit)
  const prize = prizeOf(st.def, tier)
  const key = unitKey(emission, cur.block, unit)
  const { player } = input
  r.pending.push({
    who: null,
    key,
    saleId: storedId,
    player,
    soldAt,
    stake,
    prize,
    tier,
    play: play?.code ?? null,
    events: play?.events ?? null,
    emission,
  })
  if (r.wantRecords) {
    const serial = serialOf(st, cur.block, unit)
    r.records.push({
      saleId: storedId ?? serial,
      serial,
      emission,
      block: cur.block,
      unit,
      player,
      soldAt: new Date(soldAt).toISOString(),
      stakeCents: stake,
      prizeCents: prize,
      tier,
    })
  }
}

/** The unit that the sale's serial names, if it names one. */
function namedUnit(input: SaleInput): NamedUnit | null {
  if (input.serial === undefined) return null
  try {
    return parseSerial(input.serial)
  } catch (e) {
    if (e instanceof SerialError)
      throw new AppError('INVALID_SERIAL', `serial ${JSON.stringify(input.serial)}: ${e.message}`, { field: 'serial' })
    throw e
  }
}

/** Which emission: the serial's, which must agree with the one named beside it, or the one named. */
function emissionOf(input: SaleInput, named: NamedUnit | null): number {
  if (named) {
    if (input.emission !== undefined && input.emission !== named.emission)
      throw new AppError(
        'BAD_ARGUMENTS',
        `serial ${input.serial} belongs to emission ${named.emission}, not ${input.emission}`,
        { field: 'serial' },
      )
    return named.emission
  }
  if (input.emission !== undefined) return input.emission
  throw new AppError('BAD_ARGUMENTS', 'a sale names its emission or its serial', { field: 'emission' })
}

/**
 * The same sale recorded before (idempotent batches): true to skip it when it is the same,
 * refused when it differs. A well-formed id used once in the batch, either way.
 */
function recordedBefore(
  ctx: SalesContext,
  r: BatchRun,
  input: SaleInput,
  named: NamedUnit | null,
  def: GameDefinition,
): boolean {
  const saleId = input.saleId!
  if (typeof saleId !== 'string' || saleId.trim() !== saleId || saleId === '' || saleId.length > MAX_TEXT) {
    throw new AppError(
      'BAD_ARGUMENTS',
      `saleId must be a text of 1 to ${MAX_TEXT} characters without surrounding spaces`,
      { field: 'saleId' },
    )
  }
  const earlier = r.batchIds.get(saleId)
  if (earlier !== undefined)
    throw new AppError('CONFLICT', `sale ${saleId} appears twice in the batch (also at ${earlier + 1})`, {
      field: 'saleId',
    })
  if (!r.opts.idempotent) return false
  const prev = findSale(ctx, saleId)
  if (!prev) return false
  const same =
    named !== null &&
    prev.unit_key === unitKey(named.emission, named.block, named.unit) &&
    prev.player === input.player &&
    input.soldAt !== undefined &&
    prev.sold_at === toMillis(input.soldAt) &&
    prev.stake_cents === (input.stakeCents ?? def.unitPriceCents) &&
    samePlay(prev, input.play ?? null)
  if (!same)
    throw new AppError('CONFLICT', `sale ${saleId} is already recorded with other content`, { field: 'saleId' })
  return true
}

/** The recorded sale with this id: by its serial (stored as NULL) or by the id index. */
function findSale(ctx: SalesContext, saleId: string): StoredSale | undefined {
  if (SERIAL_SHAPE.test(saleId)) {
    try {
      const u = parseSerial(saleId)
      const row = ctx.saleByKey.get(unitKey(u.emission, u.block, u.unit)) as
        (StoredSale & { sale_id: string | null }) | undefined
      return row && row.sale_id === null ? row : undefined
    } catch {
      return undefined
    }
  }
  return ctx.saleById.get(saleId) as StoredSale | undefined
}

function samePlay(stored: StoredSale, play: Play | null): boolean {
  if (play === null) return stored.play === null
  if (stored.play === null || stored.events === null) return false
  try {
    return stored.play === playCode(play) && Buffer.compare(stored.events, packEvents(play.events)) === 0
  } catch {
    return false
  }
}

/** The block being sold: the emission must be open, and a named unit the next one. */
function nextCursor(
  ctx: SalesContext,
  r: BatchRun,
  st: EmissionState,
  input: SaleInput,
  named: NamedUnit | null,
): BlockCursor {
  if (st.row.status !== 'open') throw notOpen(st)
  if (st.at >= st.blocks.length) throw soldOut(st)
  const cur = st.blocks[st.at]
  if (named && (named.block !== cur.block || named.unit !== cur.sold))
    throw notNext(ctx, r, st, cur, input.serial!, named)
  if (cur.status !== 'verified') throw cannotSell(st, cur)
  return cur
}

/** Why the named unit is not the next one: no such unit, already sold (by whom), or further on. */
function notNext(
  ctx: SalesContext,
  r: BatchRun,
  st: EmissionState,
  cur: BlockCursor,
  serial: string,
  named: NamedUnit,
): AppError {
  const def = st.def
  if (named.block > st.blocks.length)
    return new AppError(
      'NOT_FOUND',
      `serial ${serial}: emission ${named.emission} has no block ${named.block} (it has ${st.blocks.length})`,
      { field: 'serial' },
    )
  if (named.unit >= def.blockSize)
    return new AppError(
      'INVALID_SERIAL',
      `serial ${serial}: unit ${named.unit} is beyond the block's ${def.blockSize} units`,
      { field: 'serial' },
    )
  const key = unitKey(named.emission, named.block, named.unit)
  const inBatch = r.pending.find((p) => p.key === key)
  const stored = inBatch ? null : (ctx.saleByKey.get(key) as { sale_id: string | null } | undefined)
  if (inBatch || stored) {
    const by = inBatch ? (inBatch.saleId ?? serial) : (stored!.sale_id ?? serial)
    return new AppError('CONFLICT', `unit ${serial} is already sold (sale ${by})`, { field: 'serial' })
  }
  return new AppError(
    'ILLEGAL_STATE',
    `unit ${serial} is not the next unit to sell: units sell in order, and the next one is ${serialOf(st, cur.block, cur.sold)}`,
    { field: 'serial' },
  )
}

function checkStake(r: BatchRun, def: GameDefinition, stakeCents: number | undefined): number {
  const stake = stakeCents ?? def.unitPriceCents
  if (stake !== def.unitPriceCents)
    bad(r, 'BAD_ARGUMENTS', `the stake must be the unit price, ${def.unitPriceCents} cents, not ${stake}`, 'stakeCents')
  return stake
}

function checkPlayer(r: BatchRun, player: string): void {
  if (typeof player !== 'string' || player === '' || player.length > MAX_TEXT || player.trim() !== player) {
    bad(
      r,
      'BAD_ARGUMENTS',
      `player must be an account id of 1 to ${MAX_TEXT} characters without surrounding spaces`,
      'player',
    )
  } else if (playerIdProblem(player))
    bad(r, 'BAD_ARGUMENTS', `player: ${describePlayerIdProblem(playerIdProblem(player)!)}`, 'player')
}

/** The sale's time (now when left out): a real instant, on or after the emission's first day, not in the future. */
function checkSoldAt(ctx: SalesContext, r: BatchRun, st: EmissionState, given: string | number | undefined): number {
  const soldAt = given === undefined ? ctx.clock().getTime() : toMillis(given)
  const { latest } = r
  if (Number.isNaN(soldAt))
    bad(
      r,
      'BAD_ARGUMENTS',
      `soldAt ${JSON.stringify(given)} is not an ISO 8601 date-time with a zone, or names a day or a time that does not exist`,
      'soldAt',
    )
  else if (st.startsAtMs !== null && soldAt < st.startsAtMs) bad(r, 'ILLEGAL_STATE', tooEarly(st, soldAt), 'soldAt')
  else if (st.startsAtMs === null && soldAt < Date.parse(st.row.created_at))
    bad(r, 'ILLEGAL_STATE', beforeCreation(st, soldAt), 'soldAt')
  else if (soldAt > latest)
    bad(
      r,
      'BAD_ARGUMENTS',
      `a sale at ${new Date(soldAt).toISOString()} is in the future: the clock says ${new Date(latest - SALE_CLOCK_SKEW_MS).toISOString()}, and clocks may differ by up to ${SALE_CLOCK_SKEW_MS / 60_000} minutes`,
      'soldAt',
    )
  return soldAt
}

/** The sale's play packed (play-codec), null when none was sent or it breaks the rules. */
function playOf(r: BatchRun, def: GameDefinition, input: SaleInput): { code: number; events: Buffer } | null {
  if (input.packedPlay) return input.packedPlay
  if (!input.play) return null
  if (isValidPlayFast(input.play, def.winningCells, def.yoursCells) || validatePlay(input.play, def).length === 0) {
    return { code: playCode(input.play), events: packEvents(input.play.events) }
  }
  bad(r, 'BAD_ARGUMENTS', `the play breaks the rules: ${validatePlay(input.play, def).join('; ')}`, 'play')
  return null
}

/** The sale id as stored: null for the unit's own serial; an id shaped like a serial must be that. */
function storedIdOf(
  r: BatchRun,
  st: EmissionState,
  cur: BlockCursor,
  unit: number,
  saleId: string | undefined,
): string | null {
  if (saleId === undefined) return null
  if (!SERIAL_SHAPE.test(saleId)) return saleId
  if (saleId !== serialOf(st, cur.block, unit))
    bad(
      r,
      'BAD_ARGUMENTS',
      `sale id ${saleId} has the shape of a serial, so it must be the unit's own serial`,
      'saleId',
    )
  return null
}
