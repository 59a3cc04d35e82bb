/**
 * One day's sales (UTC, as the ledger's day totals count them) as each source holds them: the
 * ledger's rows, the vault's sale lines, and the sales platform's feed, each by serial.
 */
import { parseSerial } from '../../../game-core/serial'
import type { ReconDifference } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { splitUnitKey } from '../../ledger/unit-key'
import { formatSerial } from '../../../game-core/serial'
import { forEachLine } from './lines'

const DAY_MS = 86_400_000

export interface DaySale {
  serial: string
  emission: string
  block: number
  tier: number | null
  saleId: string | null
  player: string
  soldAt: string
  stakeCents: number
  prizeCents: number | null
  /** The feed's line number. */
  line?: number
}

export interface EmissionNames {
  /** An emission's code and block size by its number. */
  get(emission: number): { code: string; blockSize: number } | undefined
}

export const dayStart = (day: string) => Date.parse(`${day}T00:00:00.000Z`)

export function ledgerSalesOfDay(db: Db, day: string, names: EmissionNames): Map<string, DaySale> {
  const from = dayStart(day)
  const rows = db
    .prepare(
      `SELECT s.unit_key, s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.prize_cents, s.tier
         FROM sales s JOIN players p ON p.id = s.player_id WHERE s.sold_at >= ? AND s.sold_at < ?`,
    )
    .all(from, from + DAY_MS) as {
    unit_key: number
    sale_id: string | null
    player: string
    sold_at: number
    stake_cents: number
    prize_cents: number
    tier: number | null
  }[]
  const out = new Map<string, DaySale>()
  for (const r of rows) {
    const id = splitUnitKey(Number(r.unit_key))
    const e = names.get(id.emission)
    const serial = formatSerial(id, e?.blockSize)
    out.set(serial, {
      serial,
      emission: e?.code ?? String(id.emission),
      block: id.block,
      tier: r.tier,
      saleId: r.sale_id,
      player: r.player,
      soldAt: new Date(Number(r.sold_at)).toISOString(),
      stakeCents: Number(r.stake_cents),
      prizeCents: Number(r.prize_cents),
    })
  }
  return out
}

/** The vault's sale lines sold on `day`: in the day files from the day before on (a sale may be sent later, never much earlier). */
export function vaultSalesOfDay(folder: string, day: string): Map<string, DaySale> {
  const since = new Date(dayStart(day) - DAY_MS).toISOString().slice(0, 10)
  const mark = `"soldAt":"${day}T`
  const out = new Map<string, DaySale>()
  forEachLine(
    folder,
    (line) => {
      const text = line.toString('utf8')
      if (!text.includes(mark)) return
      const e = JSON.parse(text) as { type: string; emission: string; sales: Omit<DaySale, 'emission' | 'block'>[] }
      if (e.type !== 'sales') return
      for (const s of e.sales)
        if (s.soldAt.startsWith(day))
          out.set(s.serial, { ...s, emission: e.emission, block: parseSerial(s.serial).block })
    },
    (file) => file.slice(0, 10) >= since,
  )
  return out
}

function feedProblem(line: number, detail: string, problem: ReconDifference['problem']): ReconDifference {
  return { serial: null, problem, detail, feedLine: line }
}

/** The feed's lines sold on `day`, by serial; a line that cannot be read, or of another day, is a difference. */
export function feedSalesOfDay(
  content: string,
  day: string,
  names: EmissionNames,
): { sales: Map<string, DaySale>; lines: number; problems: ReconDifference[] } {
  const sales = new Map<string, DaySale>()
  const problems: ReconDifference[] = []
  const lines = content.replace(/^\uFEFF/, '').split(/\r?\n/)
  let count = 0
  lines.forEach((text, k) => {
    if (text.trim() === '') return
    count++
    const n = k + 1
    let o: Record<string, unknown>
    try {
      o = JSON.parse(text) as Record<string, unknown>
    } catch {
      return problems.push(feedProblem(n, 'not a JSON object', 'unreadable'))
    }
    let id
    try {
      id = parseSerial(String(o.serial))
    } catch (e) {
      return problems.push(feedProblem(n, `serial: ${(e as Error).message}`, 'unreadable'))
    }
    const soldAt = new Date(String(o.soldAt))
    if (Number.isNaN(soldAt.getTime())) return problems.push(feedProblem(n, 'soldAt is not a time', 'unreadable'))
    const serial = formatSerial(id, names.get(id.emission)?.blockSize)
    if (soldAt.toISOString().slice(0, 10) !== day)
      return problems.push({ serial, problem: 'outside-day', detail: `sold ${soldAt.toISOString()}`, feedLine: n })
    sales.set(serial, {
      serial,
      emission: names.get(id.emission)?.code ?? String(id.emission),
      block: id.block,
      tier: null,
      saleId: typeof o.saleId === 'string' ? o.saleId : null,
      player: String(o.player),
      soldAt: soldAt.toISOString(),
      stakeCents: Number(o.stakeCents),
      prizeCents: null,
      line: n,
    })
  })
  return { sales, lines: count, problems }
}
