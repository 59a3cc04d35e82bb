/**
 * What the contract refuses or neutralises before any service trusts it: a formula typed as a
 * user name that reaches the audit log's CSV, days that do not exist, and player ids holding
 * control or bidirectional formatting characters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rmSync } from 'node:fs'
import type { Backend } from '../../electron/app/backend'
import type { CsvFile } from '../../electron/contract'
import { parseCsv } from '../support/parse-csv'
import { emptyBackend, PASSWORD, tempDir } from './ledger-fixture'

let dir: string
let b: Backend
let token: string
const now = Date.parse('2026-03-02T09:00:00Z')

beforeAll(async () => {
  dir = tempDir('inputs')
  b = emptyBackend(dir, { clock: () => new Date(now) })
  expect((await b.dispatch('auth:setup', { name: 'ada', password: PASSWORD }, null)).ok).toBe(true)
  const login = (await b.dispatch('auth:login', { name: 'ada', password: PASSWORD }, null)) as {
    ok: true
    result: { token: string }
  }
  token = login.result.token
})
afterAll(async () => {
  await b.closeGracefully()
  rmSync(dir, { recursive: true, force: true })
})

describe('the audit CSV', () => {
  it("holds a failed sign-in under the name =cmd|' /C calc'!A0 as text, not as a formula", async () => {
    const name = "=cmd|' /C calc'!A0"
    expect(await b.dispatch('auth:login', { name, password: 'not the password' }, null)).toMatchObject({
      ok: false,
      error: { code: 'BAD_CREDENTIALS' },
    })
    const r = (await b.dispatch('audit:csv', {}, token)) as { ok: true; result: CsvFile }
    expect(r.ok).toBe(true)
    const rows = parseCsv(r.result.content)
    // the first line says what the file is (software, as-of time, filters), the second names the columns
    expect(rows[0][0]).toMatch(/^# software=/)
    expect(rows[1]).toEqual(['seq', 'at', 'actor', 'action', 'object', 'details', 'hash'])
    const failed = rows.find((row) => row[3] === 'auth.login-failed')!
    expect(failed[2]).toBe(`'${name}`)
    // no cell of the file starts a formula
    for (const row of rows) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/)
  })
})

describe('days that do not exist', () => {
  it("are refused as the audit log's filter days, for the list and the CSV", async () => {
    for (const channel of ['audit:list', 'audit:csv'] as const) {
      for (const field of ['from', 'to'] as const) {
        for (const day of ['2026-02-30', '2025-02-29', '2026-04-31', '2026-13-01', '2026-00-10']) {
          const r = await b.dispatch(channel, { [field]: day }, token)
          expect(r, `${channel} ${field} ${day}`).toMatchObject({
            ok: false,
            error: {
              code: 'BAD_ARGUMENTS',
              field,
              message: expect.stringContaining(`${day} is not a day of the calendar`),
            },
          })
        }
      }
      // a leap day is one
      expect((await b.dispatch(channel, { from: '2024-02-29', to: '2026-03-02' }, token)).ok).toBe(true)
    }
  })

  it("are refused in the dashboard's range, as is a range that runs backwards", async () => {
    for (const channel of ['reports:dashboard', 'reports:csv'] as const) {
      const args = channel === 'reports:csv' ? { report: 'dashboard' } : {}
      expect(await b.dispatch(channel, { ...args, from: '2026-02-30' }, token), channel).toMatchObject({
        ok: false,
        error: {
          code: 'BAD_ARGUMENTS',
          field: 'from',
          message: expect.stringContaining('2026-02-30 is not a day of the calendar'),
        },
      })
      expect(
        await b.dispatch(channel, { ...args, from: '2026-03-10', to: '2026-03-01' }, token),
        channel,
      ).toMatchObject({
        ok: false,
        error: {
          code: 'BAD_ARGUMENTS',
          field: 'to',
          message: expect.stringContaining('starts on 2026-03-10, after its end on 2026-03-01'),
        },
      })
      expect((await b.dispatch(channel, { ...args, from: '2026-03-01', to: '2026-03-01' }, token)).ok, channel).toBe(
        true,
      )
    }
  })

  it("are refused as an emission's first sale day, and nothing is created", async () => {
    const r = await b.dispatch('emissions:create', { blocks: 1, startsOn: '2026-02-30' }, token)
    expect(r).toMatchObject({
      ok: false,
      error: {
        code: 'BAD_ARGUMENTS',
        field: 'startsOn',
        message: expect.stringContaining('2026-02-30 is not a day of the calendar'),
      },
    })
    expect(b.services.emissions.list()).toEqual([])
    expect(await b.dispatch('emissions:create', { blocks: 1, startsOn: '2026-2-3' }, token)).toMatchObject({
      ok: false,
      error: {
        code: 'BAD_ARGUMENTS',
        field: 'startsOn',
        message: expect.stringContaining('must be a date YYYY-MM-DD'),
      },
    })
  })
})

describe('player ids', () => {
  it('holding a control or bidirectional formatting character are refused on every players channel', async () => {
    const bad = [
      'ab\u202Edc',
      '\u2066x\u2069',
      'a\u200Eb',
      'a\u200Fb',
      'a\u061Cb',
      'a\u0007b',
      'a\u007Fb',
      'a\u0085b',
      'a\u009Bb',
      'a\u202Ab',
    ]
    for (const player of bad) {
      const code = player
        .match(/[^a-z]/)![0]
        .charCodeAt(0)
        .toString(16)
        .toUpperCase()
        .padStart(4, '0')
      for (const [channel, args] of [
        ['players:last', { player }],
        ['players:history', { player }],
        ['players:search', { query: player }],
      ] as const) {
        const r = await b.dispatch(channel, args, token)
        expect(r, `${channel} ${JSON.stringify(player)}`).toMatchObject({
          ok: false,
          error: {
            code: 'BAD_ARGUMENTS',
            field: channel === 'players:search' ? 'query' : 'player',
            message: expect.stringContaining(`U+${code}`),
          },
        })
      }
    }
    // an id in another script is fine
    expect(await b.dispatch('players:last', { player: 'Zoé-Ωμέγα-李' }, token)).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    })
    expect((await b.dispatch('players:search', { query: 'Zoé' }, token)).ok).toBe(true)
  })
})
