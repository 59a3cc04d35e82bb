import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openBackend } from '../app/backend'
import { runCli } from './main'

const dir = mkdtempSync(join(tmpdir(), 'carats-player-cli-'))
const db = join(dir, 'ledger.db')

beforeAll(async () => {
  const b = openBackend({ dbPath: db, threads: 1 })
  const add = b.services.db.prepare('INSERT INTO players (name, units) VALUES (?, 0)')
  for (const name of ['alice', 'ALICE', 'Alicia', 'bob']) add.run(name)
  await b.closeGracefully()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function carats(...args: string[]) {
  let out = ''
  let err = ''
  const code = await runCli(['--db', db, ...args], {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    progress: () => {},
  })
  return { code, out, err }
}

describe('carats player …', () => {
  it('searches ignoring case, says how many accounts match, and pages through them', async () => {
    const r = await carats('player', 'search', 'ALI', '--page-size', '2')
    expect(r).toMatchObject({ code: 0, err: '' })
    expect(r.out.split('\n')[0]).toBe('3 player accounts whose id starts with "ALI" (ignoring case); page 1 of 2:')
    expect(r.out).toMatch(/^ {2}ALICE .*\n {2}alice /m)
    const second = JSON.parse(
      (await carats('--json', 'player', 'search', 'ali', '--page', '2', '--page-size', '2')).out,
    )
    expect(second).toMatchObject({ total: 3, page: 2, pageSize: 2, items: [{ player: 'Alicia' }] })
    expect((await carats('player', 'search', 'zed')).out).toBe(
      'no player account whose id starts with "zed" (ignoring case)\n',
    )
    expect(await carats('player', 'search', 'a', '--page-size', '101')).toMatchObject({
      code: 2,
      err: 'carats player search: --page-size must be from 1 to 100, got 101\n',
    })
  })

  it('looks a player up ignoring case, names the accounts that differ only by case, and refuses to pick one', async () => {
    expect((await carats('player', 'last', 'BOB')).out).toMatch(/^bob: 0 units/)
    expect((await carats('player', 'last', 'alice')).out).toContain(
      'note: another account differs from it only by case: ALICE',
    )
    expect(JSON.parse((await carats('--json', 'player', 'last', 'ALICE')).out)).toMatchObject({
      player: 'ALICE',
      otherCase: ['alice'],
    })
    expect(await carats('player', 'last', 'Alice')).toEqual({
      code: 1,
      out: '',
      err: 'carats player last: 2 accounts match "Alice" ignoring case (ALICE, alice): name one exactly as it is written\n',
    })
    expect(await carats('player', 'history', 'bob', '--outcome', 'some')).toMatchObject({
      code: 2,
      err: 'carats player history: --outcome must be one of all, won, lost, got "some"\n',
    })
  })
})
