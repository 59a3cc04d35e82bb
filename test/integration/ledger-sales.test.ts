import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { brokenBy } from '../support/refusal'
import { rmSync } from 'node:fs'
import { AppError } from '../../electron/contract/errors'
import type { Backend } from '../../electron/app/backend'
import type { SaleInput } from '../../electron/services/sales'
import { NO_PLAY } from '../../electron/ledger/play-codec'
import { packPlay } from '../../electron/ledger/play-codec'
import { formatSerial } from '../../game-core/serial'
import { CARATS } from '../../game-core/carats'
import { testEngine } from '../support/ledger-engine'
import { actor, openEmissionBackend, samplePlay, T0, templatePath, tempDir } from './ledger-fixture'

let dir: string
let b: Backend
beforeAll(async () => {
  await templatePath()
}, 180_000)
beforeEach(async () => {
  dir = tempDir('sales')
  b = await openEmissionBackend(dir)
})
afterEach(async () => {
  await b.closeGracefully()
  rmSync(dir, { recursive: true, force: true })
})

const serial = (unit: number, block = 1, emission = 1) => formatSerial({ emission, block, unit })

function expectAppError(fn: () => unknown, code: string, pattern?: RegExp): AppError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(AppError)
    expect((e as AppError).code).toBe(code)
    if (pattern) expect((e as AppError).message).toMatch(pattern)
    return e as AppError
  }
  throw new Error(`expected ${code}`)
}

function counts(db: Backend['services']['db']) {
  const salesRows = db.prepare('SELECT count(*) FROM sales').pluck().get() as number
  const sold = db.prepare('SELECT units_sold FROM blocks WHERE emission = 1 AND block = 1').pluck().get() as number
  const tiersFromSales = db
    .prepare('SELECT tier, count(*) AS n FROM sales WHERE tier IS NOT NULL GROUP BY tier ORDER BY tier')
    .all()
  const tierCounters = db
    .prepare('SELECT tier, sold AS n FROM block_tiers WHERE emission = 1 AND block = 1 AND sold > 0 ORDER BY tier')
    .all()
  return { salesRows, sold, tiersFromSales, tierCounters }
}

describe('sales', () => {
  it('sells units in index order, with prizes from the block, and keeps every counter in step', () => {
    const s = b.services
    const deriver = s.catalog.deriver(1, 1)
    const first = s.sales.sellNext(1, { player: 'alice', soldAt: T0, play: samplePlay(1) })
    expect(first).toMatchObject({
      emission: 1,
      block: 1,
      unit: 0,
      serial: serial(0),
      saleId: serial(0),
      player: 'alice',
      stakeCents: 500,
    })
    expect(first.prizeCents).toBe(deriver.prizeOf(0))
    const batch: SaleInput[] = Array.from({ length: 3000 }, (_, i) => ({
      emission: 1,
      player: `p${i % 37}`,
      soldAt: T0 + 1000 * (i + 1),
      play: samplePlay(i),
    }))
    const r = s.sales.sellBatch(batch)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.sold.map((x) => x.unit)).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1))
    for (const x of r.sold) expect(x.prizeCents).toBe(deriver.prizeOf(x.unit))
    const c = counts(s.db)
    expect(c.salesRows).toBe(3001)
    expect(c.sold).toBe(3001)
    expect(c.tierCounters).toEqual(c.tiersFromSales)
    expect(s.sales.nextUnit(1)).toEqual({ block: 1, unit: 3001, serial: serial(3001) })
    const day = s.db
      .prepare('SELECT sum(units) AS units, sum(sales_cents) AS cents, sum(prizes_cents) AS prizes FROM daily_sales')
      .get() as { units: number; cents: number; prizes: number }
    const won = s.db.prepare('SELECT sum(prize_cents) FROM sales').pluck().get() as number
    expect(day).toEqual({ units: 3001, cents: 3001 * 500, prizes: won })
    const totals = s.db
      .prepare('SELECT sum(units) AS units, sum(staked_cents) AS staked, sum(won_cents) AS won FROM players')
      .get()
    expect(totals).toEqual({ units: 3001, staked: 3001 * 500, won })
  })

  it("streams checked columns a piece at a time, keeping nothing of a piece's buffers once it is taken (the importer reuses them)", () => {
    const s = b.services
    const pieces = [150, 7, 260]
    const packed = (unit: number) => packPlay(samplePlay(unit))
    // one buffer for every piece's plays, overwritten after each add, as the importer's ring slots are
    const shared = new Uint8Array(400 * 64 * 6)
    s.db
      .transaction(() => {
        const stream = s.sales.checkedStream(1)
        let unit = 0
        for (const n of pieces) {
          const codes = new Uint8Array(n)
          const ends = new Uint32Array(n)
          let at = 0
          for (let i = 0; i < n; i++) {
            const p = packed(unit + i)
            shared.set(p.events, at)
            at += p.events.length
            codes[i] = p.code
            ends[i] = at
          }
          stream.add({
            count: n,
            players: Array.from({ length: n }, (_, i) => `s${(unit + i) % 5}`),
            soldAt: new Float64Array(n).fill(T0),
            codes,
            ends,
            events: shared,
            saleIds: Array.from({ length: n }, (_, i) => `S-${unit + i}`),
          })
          shared.fill(0xff)
          unit += n
        }
        expect(stream.finish()).toBe(unit)
      })
      .immediate()
    const rows = s.db.prepare('SELECT play, events FROM sales ORDER BY unit_key').all() as {
      play: number
      events: Buffer
    }[]
    expect(rows.length).toBe(417)
    rows.forEach((r, unit) =>
      expect({ play: r.play, events: Buffer.from(r.events) }, `unit ${unit}`).toEqual({
        play: packed(unit).code,
        events: Buffer.from(packed(unit).events),
      }),
    )
    const c = counts(s.db)
    expect(c.tierCounters).toEqual(c.tiersFromSales)
    expect(s.db.prepare('SELECT sum(units) FROM players').pluck().get()).toBe(417)
  })

  it('never sells a unit twice: a feed naming an already sold unit is refused', () => {
    const s = b.services
    s.sales.sellBatch([{ serial: serial(0), player: 'alice', soldAt: T0, saleId: 'A-1' }])
    expectAppError(
      () => s.sales.sellBatch([{ serial: serial(0), player: 'bob', soldAt: T0 + 1, saleId: 'B-1' }]),
      'CONFLICT',
      /already sold \(sale A-1\)/,
    )
    expectAppError(
      () => s.sales.sellBatch([{ serial: serial(5), player: 'bob', soldAt: T0 + 1 }]),
      'ILLEGAL_STATE',
      /not the next unit.*next one is 0001-001-0000001/,
    )
    // a direct insert of the same unit is refused by the ledger itself
    const again = () =>
      s.db
        .prepare(
          'INSERT INTO sales (unit_key, player_id, sold_at, stake_cents, prize_cents) VALUES (10010000000, 1, 0, 500, 0)',
        )
        .run()
    expect(['unique', 'primary-key']).toContain(brokenBy(again))
    expect(counts(s.db).salesRows).toBe(1)
  })

  it("sells checked columns (the simulator's and the importer's path) like a batch, and refuses what it still checks, writing nothing", () => {
    const s = b.services
    const cols = (n: number, saleIds?: (string | null)[]) => ({
      count: n,
      players: Array.from({ length: n }, (_, i) => `p${i % 3}`),
      soldAt: new Float64Array(n).fill(T0),
      codes: new Uint8Array(n).fill(NO_PLAY),
      ends: new Uint32Array(n),
      events: new Uint8Array(0),
      saleIds,
    })
    expect(s.sales.sellChecked(1, cols(5, [null, 'A-1', null, 'A-3', null]))).toBe(5)
    const rows = s.db.prepare('SELECT sale_id, play, events FROM sales ORDER BY unit_key').all() as {
      sale_id: string | null
      play: number | null
    }[]
    expect(rows.map((r) => r.sale_id)).toEqual([null, 'A-1', null, 'A-3', null])
    expect(rows.every((r) => r.play === null)).toBe(true)
    expect(s.players.last('p0').lastUnits.map((u) => u.serial)).toEqual([serial(3), serial(0)])
    const before = counts(s.db)
    expectAppError(() => s.sales.sellChecked(1, cols(2, [null, serial(6)])), 'BAD_ARGUMENTS', /shape of a serial/)
    expectAppError(() => s.sales.sellChecked(1, cols(CARATS.blockSize)), 'SOLD_OUT')
    expect(counts(s.db)).toEqual(before)
    s.emissions.close(actor('operator'), 1)
    expectAppError(() => s.sales.sellChecked(1, cols(1)), 'ILLEGAL_STATE', /not open/)
    expect(counts(s.db)).toEqual(before)
    if (testEngine() === 'sqlite') expect(s.db.pragma('foreign_keys', { simple: true })).toBe(1)
  })

  it('writes a batch whole or not at all', () => {
    const s = b.services
    const good = (i: number): SaleInput => ({ emission: 1, player: 'p', soldAt: T0 + i })
    expectAppError(
      () => s.sales.sellBatch([good(1), good(2), { ...good(3), stakeCents: 400 }, good(4)]),
      'BAD_ARGUMENTS',
      /stake must be the unit price, 500 cents, not 400/,
    )
    expect(counts(s.db)).toMatchObject({ salesRows: 0, sold: 0 })
    expect(s.db.prepare('SELECT count(*) FROM players').pluck().get()).toBe(0)
  })

  it('lists every bad sale of a batch, by index, and stores nothing', () => {
    const s = b.services
    const broken = samplePlay(2)
    broken.events[7] = { ...broken.events[7], cell: 99 }
    const r = s.sales.sellBatch(
      [
        { serial: serial(0), player: 'p1', soldAt: '2026-03-02T09:00:00Z', saleId: 's0' },
        { serial: serial(1), player: 'p1', soldAt: 'yesterday', saleId: 's1' },
        { serial: serial(2), player: '', soldAt: T0, saleId: 's2' },
        { serial: serial(3), player: 'p1', soldAt: T0, saleId: 's3', play: broken },
        { serial: '0001-001-0000004-0', player: 'p1', soldAt: T0, saleId: 's4' },
        { serial: serial(9), player: 'p1', soldAt: T0, saleId: 's5' },
        { serial: serial(5), player: 'p1', soldAt: T0, saleId: 's0' },
      ],
      { collectErrors: true, idempotent: true },
    )
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.errors.map((e) => [e.index, e.code])).toEqual([
      [1, 'BAD_ARGUMENTS'],
      [2, 'BAD_ARGUMENTS'],
      [3, 'BAD_ARGUMENTS'],
      [4, 'INVALID_SERIAL'],
      [5, 'ILLEGAL_STATE'],
      [6, 'CONFLICT'],
    ])
    expect(r.errors[0].reason).toMatch(/soldAt "yesterday" is not an ISO 8601/)
    expect(r.errors[2].reason).toMatch(/play breaks the rules: event 8: cell 99 is outside/)
    expect(r.errors[3].reason).toMatch(/check digit/)
    expect(counts(s.db)).toMatchObject({ salesRows: 0, sold: 0 })
  })

  it('skips a sale recorded before with the same content, and refuses one with other content', () => {
    const s = b.services
    const line = (i: number, player = 'p1'): SaleInput => ({
      serial: serial(i),
      player,
      soldAt: new Date(T0 + i).toISOString(),
      saleId: `S-${i}`,
      play: samplePlay(i),
    })
    expect(s.sales.sellBatch([line(0), line(1)], { idempotent: true })).toMatchObject({
      ok: true,
      count: 2,
      alreadyRecorded: 0,
    })
    expect(s.sales.sellBatch([line(0), line(1), line(2)], { idempotent: true })).toMatchObject({
      ok: true,
      count: 1,
      alreadyRecorded: 2,
    })
    expectAppError(
      () => s.sales.sellBatch([line(1, 'mallory')], { idempotent: true }),
      'CONFLICT',
      /S-1 is already recorded with other content/,
    )
    // a sale id that is the serial is stored as NULL and still recognised
    s.sales.sellBatch([{ serial: serial(3), player: 'p2', soldAt: T0 + 3, saleId: serial(3) }], { idempotent: true })
    expect(
      s.sales.sellBatch([{ serial: serial(3), player: 'p2', soldAt: T0 + 3, saleId: serial(3) }], { idempotent: true }),
    ).toMatchObject({ ok: true, count: 0, alreadyRecorded: 1 })
    expectAppError(
      () => s.sales.sellBatch([{ serial: serial(4), player: 'p2', soldAt: T0 + 4, saleId: serial(3) }]),
      'BAD_ARGUMENTS',
      /shape of a serial/,
    )
    expect(counts(s.db).salesRows).toBe(4)
  })

  it('refuses to sell from an emission that is not open, and after it closes', () => {
    const s = b.services
    s.emissions.create(actor('operator'), { blocks: 2 })
    expectAppError(
      () => s.sales.sellNext(2, { player: 'p' }),
      'ILLEGAL_STATE',
      /emission 2 is not open for sale: it is created but not generated/,
    )
    expectAppError(() => s.sales.sellNext(7, { player: 'p' }), 'NOT_FOUND', /emission 7 does not exist/)
    s.emissions.close(actor('operator'), 1)
    expectAppError(
      () => s.sales.sellNext(1, { player: 'p' }),
      'ILLEGAL_STATE',
      /emission 1 is not open for sale: it is closed/,
    )
  })

  it('refuses to sell from a withdrawn emission, from a failed block, before the start date, and when sold out', () => {
    const s = b.services
    s.db.prepare("UPDATE blocks SET status = 'failed' WHERE emission = 1").run()
    expectAppError(
      () => s.sales.sellNext(1, { player: 'p' }),
      'ILLEGAL_STATE',
      /block 1\/1 cannot sell: it failed its verification/,
    )
    s.db.prepare("UPDATE blocks SET status = 'verified' WHERE emission = 1").run()
    s.db.prepare("UPDATE emissions SET starts_on = '2026-04-01' WHERE emission = 1").run()
    expectAppError(
      () => s.sales.sellNext(1, { player: 'p', soldAt: T0 }),
      'ILLEGAL_STATE',
      /starts selling on 2026-04-01/,
    )
    s.db.prepare('UPDATE emissions SET starts_on = NULL WHERE emission = 1').run()
    s.db.prepare('UPDATE blocks SET units_sold = ? WHERE emission = 1').run(CARATS.blockSize)
    expectAppError(() => s.sales.sellNext(1, { player: 'p' }), 'SOLD_OUT', /emission 1 is sold out: all 8016000 units/)
    s.db.prepare('UPDATE blocks SET units_sold = 0 WHERE emission = 1').run()
    s.emissions.withdraw(actor('operator'), 1, 'printing error on the certificate')
    expectAppError(() => s.sales.sellNext(1, { player: 'p' }), 'ILLEGAL_STATE', /it is withdrawn/)
  })

  it('raises an alert, once, when the top prizes of the block and of the emission are all sold', () => {
    const s = b.services
    const tiers = s.catalog.deriver(1, 1).tiers
    const top = [...tiers.keys()].filter((u) => tiers[u] === 0)
    expect(top).toHaveLength(2)
    // jump to each top prize (the counters are not the point here)
    for (const u of top) {
      s.db.prepare('UPDATE blocks SET units_sold = ? WHERE emission = 1 AND block = 1').run(u)
      s.sales.sellNext(1, { player: 'lucky', soldAt: T0 + u })
    }
    const alerts = s.alerts.list().filter((a) => a.amountCents === 50_000_000)
    expect(alerts.map((a) => a.block).sort()).toEqual([1, null].sort())
    expect(alerts[0].message).toMatch(/500 000 €/)
    const audited = s.audit.list({ page: 1, pageSize: 50, action: 'alert.top-prizes-sold-out' })
    expect(audited.total).toBe(2)
    s.db.prepare('UPDATE blocks SET units_sold = ? WHERE emission = 1 AND block = 1').run(top[1] + 1)
    s.sales.sellNext(1, { player: 'later', soldAt: T0 })
    expect(s.alerts.list().filter((a) => a.amountCents === 50_000_000)).toHaveLength(2)
  })
})

describe('tickets', () => {
  it('shows a sold unit with its content, matches, sale and play', () => {
    const s = b.services
    const play = samplePlay(3)
    const sold = s.sales.sellNext(1, { player: 'alice', soldAt: T0, play, saleId: 'SALE-1' })
    const view = s.tickets.get(actor('support'), sold.serial)
    expect(view).toMatchObject({
      serial: serial(0),
      sold: true,
      prizeCents: sold.prizeCents,
      sale: { saleId: 'SALE-1', player: 'alice', soldAt: new Date(T0).toISOString(), stakeCents: 500 },
    })
    expect(view.play).toEqual(play)
    expect(view.winning).toHaveLength(6)
    expect(view.numbers).toHaveLength(24)
    const fromMatches = view.matches.reduce((a, cell) => a + view.amountsCents[cell], 0)
    expect(fromMatches).toBe(view.prizeCents)
    for (const cell of view.matches) expect(view.winning).toContain(view.numbers[cell])
  })

  it('finds a winning unit among the first sold ones and evaluates it', () => {
    const s = b.services
    const r = s.sales.sellBatch(Array.from({ length: 20 }, (_, i) => ({ emission: 1, player: 'w', soldAt: T0 + i })))
    if (!r.ok) throw new Error('batch failed')
    const winner = r.sold.find((x) => x.prizeCents > 0)!
    const view = s.tickets.get(actor('admin'), winner.serial.replace(/-/g, ''))
    expect(view.prizeCents).toBe(winner.prizeCents)
    expect(view.matches.length).toBeGreaterThan(0)
  })

  it("keeps an unsold unit's content for auditors who give a reason, and logs it", () => {
    const s = b.services
    const unsold = serial(123_456)
    expectAppError(() => s.tickets.get(actor('support'), unsold), 'FORBIDDEN', /not sold.*only an auditor/)
    expectAppError(() => s.tickets.get(actor('admin'), unsold, 'curious'), 'FORBIDDEN')
    expectAppError(() => s.tickets.get(actor('auditor'), unsold), 'REASON_REQUIRED', /give a reason/)
    expect(s.audit.list({ page: 1, pageSize: 10, action: 'ticket.' }).total).toBe(0)
    const view = s.tickets.get(actor('auditor'), unsold, 'complaint 4711 from the regulator')
    expect(view).toMatchObject({ sold: false, sale: null, play: null, unit: 123_456 })
    expect(view.prizeCents).toBe(s.catalog.deriver(1, 1).prizeOf(123_456))
    const log = s.audit.list({ page: 1, pageSize: 10, action: 'ticket.inspect-unsold' })
    expect(log.items[0]).toMatchObject({ actor: 'aude', object: `unit:${unsold}` })
    expect(JSON.parse(log.items[0].details)).toEqual({ reason: 'complaint 4711 from the regulator' })
  })

  it('says what is wrong with a serial', () => {
    const s = b.services
    const good = serial(42)
    const typo = good.slice(0, 10) + ((Number(good[10]) + 1) % 10) + good.slice(11)
    expectAppError(() => s.tickets.get(actor('auditor'), typo, 'typo test'), 'INVALID_SERIAL', /check digit/)
    expectAppError(() => s.tickets.get(actor('auditor'), 'abc'), 'INVALID_SERIAL', /not a digit/)
    expectAppError(
      () => s.tickets.get(actor('auditor'), formatSerial({ emission: 1, block: 2, unit: 0 }), 'why not'),
      'NOT_FOUND',
      /no block 2/,
    )
    s.emissions.create(actor('operator'), { blocks: 1 })
    expectAppError(
      () => s.tickets.get(actor('auditor'), formatSerial({ emission: 2, block: 1, unit: 0 }), 'why not'),
      'ILLEGAL_STATE',
      /not been generated/,
    )
  })
})

describe('players', () => {
  it('gives the last unit and the 9 before it, newest first, the paged history and the totals', () => {
    const s = b.services
    const inputs: SaleInput[] = []
    for (let i = 0; i < 60; i++)
      inputs.push({
        emission: 1,
        player: i % 3 === 0 ? 'carol' : `other-${i % 5}`,
        soldAt: T0 + i * 60_000,
        play: i % 2 ? samplePlay(i) : null,
      })
    const r = s.sales.sellBatch(inputs.slice(0, 30))
    const r2 = s.sales.sellBatch(inputs.slice(30))
    if (!r.ok || !r2.ok) throw new Error('batch failed')
    const carols = [...r.sold, ...r2.sold].filter((x) => x.player === 'carol').reverse()
    expect(carols).toHaveLength(20)
    const last = s.players.last('carol')
    expect(last.lastUnits.map((u) => u.serial)).toEqual(carols.slice(0, 10).map((x) => x.serial))
    expect(last).toMatchObject({
      player: 'carol',
      units: 20,
      stakedCents: 20 * 500,
      wonCents: carols.reduce((a, x) => a + x.prizeCents, 0),
    })
    expect(last.firstSaleAt).toBe(new Date(T0).toISOString())
    expect(last.lastSaleAt).toBe(carols[0].soldAt)
    expect(last.lastUnits[0]).toMatchObject({ mode: 'play', status: 'complete' }) // sale 57: odd, with a play
    expect(last.lastUnits[1]).toMatchObject({ mode: null, status: null }) // sale 54: even, without
    const p2 = s.players.history('carol', { page: 2, pageSize: 8 })
    expect(p2).toMatchObject({ total: 20, page: 2, pageSize: 8 })
    expect(p2.items.map((u) => u.serial)).toEqual(carols.slice(8, 16).map((x) => x.serial))
    expect(s.players.history('carol', { page: 3, pageSize: 8 }).items).toHaveLength(4)
    expect(s.players.history('carol', { page: 9, pageSize: 8 }).items).toHaveLength(0)
    expect(s.players.search('other-', 1, 10).items.map((p) => p.player)).toEqual([
      'other-0',
      'other-1',
      'other-2',
      'other-3',
      'other-4',
    ])
    expect(s.players.search('car', 1, 10).items.map((p) => p.units)).toEqual([20])
    expect(() => s.players.last('nobody')).toThrow(/no player "nobody"/)
  })
})
