import { afterEach, describe, expect, it } from 'vitest'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { SALE_CLOCK_SKEW_MS } from '../common'
import { openLedgerFixture, type LedgerFixture } from '../../../test/support/simulator-world'
import { refusal } from '../../../test/support/refusal'

const NOW = Date.parse('2025-03-20T15:00:00Z')
const open: LedgerFixture[] = []
afterEach(() => {
  while (open.length) open.pop()!.close()
})

function fixture(): LedgerFixture {
  const f = openLedgerFixture({ definition: smallDefinition(), clock: () => new Date(NOW) })
  open.push(f)
  return f
}

describe("a sale's time, as sellBatch and sellNext take it", () => {
  it('is refused before the emission was created when it has no first sale day, and taken from then on', async () => {
    const f = fixture()
    const e = await f.openEmission()
    const created = f.catalog.emission(e).created_at
    const early = refusal(() => f.sales.sellNext(e, { player: 'ada', soldAt: NOW - 1 }))
    expect(early.code).toBe('ILLEGAL_STATE')
    expect(early.message).toBe(
      `emission ${e} was created on ${created} and has no first sale day: a sale at 2025-03-20T14:59:59.999Z is before it`,
    )
    expect(f.sales.sellNext(e, { player: 'ada', soldAt: NOW }).unit).toBe(0)
  })

  it('is refused before the first sale day, as before', async () => {
    const f = fixture()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    expect(refusal(() => f.sales.sellNext(e, { player: 'ada', soldAt: '2025-02-28T23:59:59Z' })).message).toMatch(
      /starts selling on 2025-03-01/,
    )
    // from the first day on, though before the emission was created (an emission may be recorded after its sales began)
    expect(f.sales.sellNext(e, { player: 'ada', soldAt: '2025-03-01T00:00:00Z' }).unit).toBe(0)
  })

  it(`is refused more than ${SALE_CLOCK_SKEW_MS / 60_000} minutes ahead of the clock, and taken within them`, async () => {
    const f = fixture()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    const ahead = refusal(() =>
      f.sales.sellBatch([{ emission: e, player: 'ada', soldAt: NOW + SALE_CLOCK_SKEW_MS + 1 }]),
    )
    expect(ahead.code).toBe('BAD_ARGUMENTS')
    expect(ahead.message).toBe(
      'a sale at 2025-03-20T15:05:00.001Z is in the future: the clock says 2025-03-20T15:00:00.000Z, and clocks may differ by up to 5 minutes',
    )
    expect(ahead.extras.field).toBe('soldAt')
    expect(f.sales.sellBatch([{ emission: e, player: 'ada', soldAt: NOW + SALE_CLOCK_SKEW_MS }]).ok).toBe(true)
    // with collectErrors, each bad sale is listed with its reason
    const r = f.sales.sellBatch(
      [
        { emission: e, player: 'bob', soldAt: NOW + 3_600_000 },
        { emission: e, player: 'bob', soldAt: '2025-02-30T10:00:00Z' },
      ],
      { collectErrors: true },
    )
    expect(r).toEqual({
      ok: false,
      errors: [
        { index: 0, code: 'BAD_ARGUMENTS', reason: expect.stringMatching(/is in the future/) },
        {
          index: 1,
          code: 'BAD_ARGUMENTS',
          reason:
            'soldAt "2025-02-30T10:00:00Z" is not an ISO 8601 date-time with a zone, or names a day or a time that does not exist',
        },
      ],
    })
    expect(f.catalog.block(e, 1).units_sold).toBe(1)
  })

  it('refuses a player id with a control or bidirectional formatting character', async () => {
    const f = fixture()
    const e = await f.openEmission({ startsOn: '2025-03-01' })
    const bad = refusal(() => f.sales.sellNext(e, { player: 'ada\u202Eevil', soldAt: NOW }))
    expect(bad.code).toBe('BAD_ARGUMENTS')
    expect(bad.message).toMatch(/U\+202E at character 4/)
    expect(f.catalog.block(e, 1).units_sold).toBe(0)
  })
})
