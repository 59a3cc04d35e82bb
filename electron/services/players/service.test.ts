import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLedger, type Db } from '../../ledger/db'
import { unitKey } from '../../ledger/unit-key'
import type { Catalog } from '../catalog'
import { createPlayersService, type PlayersService } from './service'
import { refusal } from '../../../test/support/refusal'
import { testEngine } from '../../../test/support/ledger-engine'
import { freshLedgerLocation } from '../../../test/support/fresh-ledger'

let dir: string
let db: Db
let players: PlayersService
const T0 = Date.parse('2026-03-02T09:00:00Z')
/** What the players service asks of the catalog: one emission of CARATS-sized blocks, not a demonstration. */
const catalog = { definition: () => ({ blockSize: 8_016_000 }), facts: () => ({ demo: 0 }) } as unknown as Catalog

/** Prepared statements' texts, as the service gives them to SQLite. */
const prepared: string[] = []

/** An account with `prizes.length` sales, sold one after another, the last prize the newest sale's. */
function addPlayer(name: string, prizes: number[] = []): void {
  const id = db.prepare('INSERT INTO players (name) VALUES (?) RETURNING id').pluck().get(name) as number
  for (const prize of prizes) {
    const key = unitKey(1, 1, (db.prepare('SELECT count(*) FROM sales').pluck().get() as number) + 1)
    db.prepare(
      'INSERT INTO sales (unit_key, player_id, sold_at, stake_cents, prize_cents) VALUES (?, ?, ?, 500, ?)',
    ).run(key, id, T0 + (key % 1e7), prize)
    db.prepare(
      'UPDATE players SET units = units + 1, staked_cents = staked_cents + 500, won_cents = won_cents + ?, last_key = ? WHERE id = ?',
    ).run(prize, key, id)
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'players-'))
  db = openLedger(freshLedgerLocation(dir, 'l').location)
  prepared.length = 0
  const recording = new Proxy(db, {
    get: (target, prop) =>
      prop === 'prepare'
        ? (sql: string) => (prepared.push(sql), target.prepare(sql))
        : Reflect.get(target, prop, target),
  })
  players = createPlayersService({ db: recording, catalog })
  for (const name of ['alice', 'ALICE', 'Alicia', 'alistair', 'bob', 'Zoé', 'zoÉ']) addPlayer(name)
})
afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('finding a player', () => {
  it('searches by the start of the id ignoring case, with the count of matches and a page of them', () => {
    const all = players.search('ALI', 1, 10)
    expect(all.total).toBe(4)
    // ordered ignoring case, ids that differ only by case side by side
    expect(all.items.map((p) => p.player)).toEqual(['ALICE', 'alice', 'Alicia', 'alistair'])
    expect(players.search('ali', 1, 10)).toEqual(all)
    const first = players.search('ali', 1, 3)
    const second = players.search('ali', 2, 3)
    expect(first).toMatchObject({ total: 4, page: 1, pageSize: 3 })
    expect(second).toMatchObject({ total: 4, page: 2, pageSize: 3 })
    expect([...first.items, ...second.items].map((p) => p.player)).toEqual(all.items.map((p) => p.player))
    expect(players.search('ali', 3, 3).items).toEqual([])
    expect(players.search('', 1, 100).total).toBe(7)
    expect(players.search('nobody', 1, 10)).toEqual({ total: 0, page: 1, pageSize: 10, items: [] })
  })

  // SQLite's NOCASE folds ASCII letters only; PostgreSQL's (an ICU collation) folds every letter's
  // case, accented ones too: a documented difference of the engines (docs/ledger.md).
  it('folds the case of ASCII letters (and, on PostgreSQL, of accented ones)', () => {
    const both = testEngine() === 'postgres'
    expect(players.search('ZOÉ', 1, 10).items.map((p) => p.player)).toEqual(both ? ['Zoé', 'zoÉ'] : ['zoÉ'])
    expect(players.search('zoé', 1, 10).items.map((p) => p.player)).toEqual(both ? ['Zoé', 'zoÉ'] : ['Zoé'])
  })

  it('looks an id up ignoring case, and names the accounts that differ from it only by case', () => {
    expect(players.last('BOB')).toMatchObject({ player: 'bob', otherCase: [] })
    expect(players.last('alice')).toMatchObject({ player: 'alice', otherCase: ['ALICE'] })
    expect(players.last('ALICE')).toMatchObject({ player: 'ALICE', otherCase: ['alice'] })
    expect(refusal(() => players.last('nobody'))).toMatchObject({
      code: 'NOT_FOUND',
      message: 'no player "nobody" has bought a unit',
    })
  })

  it('never takes one of several accounts silently when none is the id as typed', () => {
    const e = refusal(() => players.last('Alice'))
    expect(e.code).toBe('CONFLICT')
    expect(e.message).toBe('2 accounts match "Alice" ignoring case (ALICE, alice): name one exactly as it is written')
    expect(e.extras).toMatchObject({
      field: 'player',
      reason: { key: 'PLAYER_AMBIGUOUS', params: { player: 'Alice', count: 2, accounts: 'ALICE, alice' } },
    })
    expect(refusal(() => players.history('aLiCe', { page: 1, pageSize: 10 })).code).toBe('CONFLICT')
  })

  // SQLite's query plans (EXPLAIN QUERY PLAN and its wording): SQLite only
  it.skipIf(testEngine() === 'postgres')(
    'searches and looks up on the NOCASE index, never by reading the whole table',
    () => {
      players.search('ali', 2, 3)
      players.last('alice')
      const onNames = prepared.filter((sql) => /name COLLATE NOCASE [>=]/.test(sql))
      expect(onNames.length).toBeGreaterThanOrEqual(3)
      for (const sql of onNames) {
        const plan = (
          db
            .prepare(`EXPLAIN QUERY PLAN ${sql}`)
            .all(...Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 'a')) as { detail: string }[]
        ).map((r) => r.detail)
        expect(plan.join(' | '), sql).toMatch(/SEARCH players USING (COVERING )?INDEX players_by_name_nocase/)
        expect(plan.join(' | '), sql).not.toMatch(/TEMP B-TREE/)
      }
    },
  )
})

describe("a player's history", () => {
  // oldest first: the chain runs from the last one back
  const prizes = [0, 200, 0, 5000, 0, 0, 100, 0]
  beforeEach(() => addPlayer('carol', prizes))
  const prizesOf = (p: { items: { prizeCents: number }[] }) => p.items.map((u) => u.prizeCents)

  it('follows the chain newest first, or oldest first, a page at a time', () => {
    expect(prizesOf(players.history('carol', { page: 1, pageSize: 5 }))).toEqual([...prizes].reverse().slice(0, 5))
    const oldest = players.history('carol', { page: 1, pageSize: 5, order: 'asc' })
    expect(oldest).toMatchObject({ total: 8 })
    expect(prizesOf(oldest)).toEqual(prizes.slice(0, 5))
    expect(prizesOf(players.history('carol', { page: 2, pageSize: 5, order: 'asc' }))).toEqual(prizes.slice(5))
  })

  it('lists the winning units or the losing ones, with their count, and sorts by prize', () => {
    const won = players.history('carol', { page: 1, pageSize: 2, outcome: 'won' })
    expect(won.total).toBe(3)
    expect(prizesOf(won)).toEqual([100, 5000]) // newest first
    expect(players.history('carol', { page: 1, pageSize: 10, outcome: 'lost' })).toMatchObject({ total: 5 })
    expect(prizesOf(players.history('carol', { page: 1, pageSize: 3, sort: 'prizeCents' }))).toEqual([5000, 200, 100])
    expect(
      prizesOf(players.history('carol', { page: 1, pageSize: 10, sort: 'prizeCents', order: 'asc', outcome: 'won' })),
    ).toEqual([100, 200, 5000])
  })
})
