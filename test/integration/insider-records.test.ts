/**
 * Insiders with the database and without the key (issue 29, items 2 and 3): an administrator
 * minted by plain SQL, a role raised, an earlier state put back; look-alike names; privileged
 * accounts that take part in a two-person step only once a second person confirmed them.
 * On both engines: the `sqlite3` shell on the file, `psql` on a team ledger.
 */
import { describe, expect, it } from 'vitest'
import { rmSync } from 'node:fs'
import type { Backend } from '../../electron/app/backend'
import { outsideSql } from '../support/outside-sql'
import { ledgerOf, PASSWORD, USERS } from './ledger-fixture'
import { call, signIn, useTemplateLedgers } from './staff-calls'

const { ledger, release } = useTemplateLedgers('insider')
const sql = (b: Backend, text: string) => outsideSql(ledgerOf(b).location, text)
const findings = (b: Backend) => b.services.audit.checkRecords().findings
/** A statement on `table` with its guarding triggers out of the way, as the database's owner can. */
function withoutTriggers(at: Backend | string, table: string, statement: string): string {
  const location = typeof at === 'string' ? at : ledgerOf(at).location
  if (location.startsWith('postgresql:'))
    return `ALTER TABLE ${table} DISABLE TRIGGER USER; ${statement}; ALTER TABLE ${table} ENABLE TRIGGER USER`
  return `PRAGMA writable_schema = 0; ${statement.replace(/^DELETE/, `DROP TRIGGER IF EXISTS ${table}_no_delete; DELETE`)}`
}
const userId = (b: Backend, name: string) => Number(sql(b, `SELECT id FROM users WHERE name = '${name}'`))

describe('rows bound to the audit log', () => {
  it('an administrator minted with plain SQL cannot sign in, and the check names the account', async () => {
    const b = await ledger()
    expect(findings(b)).toEqual([])
    sql(
      b,
      `INSERT INTO users (name, role, password_hash, password_salt, active, created_at)
      SELECT 'mallory', 'admin', password_hash, password_salt, 1, created_at FROM users WHERE name = '${USERS.admin}'`,
    )
    const refused = await call(b, 'auth:login', { name: 'mallory', password: PASSWORD })
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'BAD_CREDENTIALS', reason: { key: 'ACCOUNT_NOT_SOUND' } },
    })
    expect(findings(b)).toEqual([
      expect.objectContaining({
        kind: 'user',
        row: expect.stringMatching(/"mallory" \(admin\)/),
        problem: expect.stringMatching(/no audit entry accounts for it/),
      }),
    ])
    // the accounts' list says so, and no second person can confirm it into the house
    const admin = await signIn(b, USERS.admin)
    const listed = (
      (await call(b, 'users:list', {}, admin)) as {
        ok: true
        result: { id: number; name: string; recordProblem: string | null }[]
      }
    ).result
    const mallory = listed.find((u) => u.name === 'mallory')!
    expect(mallory.recordProblem).toMatch(/no audit entry accounts for it/)
    expect(listed.filter((u) => u.recordProblem !== null)).toHaveLength(1)
    expect(await call(b, 'users:confirm', { userId: mallory.id }, await signIn(b, USERS.auditor))).toMatchObject({
      ok: false,
      error: { reason: { key: 'ACCOUNT_NOT_SOUND' } },
    })
    // the audit chain itself is whole: only the rows say what was done
    expect(b.services.audit.verify().ok).toBe(true)
  })

  it('a role raised with the database ends the live session, refuses the next sign-in and is named', async () => {
    const b = await ledger()
    const token = await signIn(b, USERS.support)
    expect((await call(b, 'players:search', { query: '' }, token)).ok).toBe(true)
    sql(b, `UPDATE users SET role = 'admin' WHERE name = '${USERS.support}'`)
    expect(await call(b, 'users:list', {}, token)).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
    expect(await call(b, 'auth:login', { name: USERS.support, password: PASSWORD })).toMatchObject({
      ok: false,
      error: { reason: { key: 'ACCOUNT_NOT_SOUND' } },
    })
    expect(findings(b)).toEqual([
      expect.objectContaining({
        row: expect.stringMatching(/"suzy" \(admin\)/),
        problem: expect.stringMatching(/does not match its seal/),
      }),
    ])
  })

  it('an earlier state put back with its earlier seal is older than the log says', async () => {
    const b = await ledger()
    const id = userId(b, USERS.manager)
    const before = sql(b, `SELECT seq || '|' || mac FROM row_seals WHERE kind = 'user' AND key = '${id}'`).split('|')
    const admin = await signIn(b, USERS.admin)
    expect((await call(b, 'users:update', { userId: id, active: false }, admin)).ok).toBe(true)
    sql(
      b,
      `UPDATE users SET active = 1 WHERE id = ${id}; UPDATE row_seals SET seq = ${before[0]}, mac = '${before[1]}' WHERE kind = 'user' AND key = '${id}'`,
    )
    expect(await call(b, 'auth:login', { name: USERS.manager, password: PASSWORD })).toMatchObject({
      ok: false,
      error: { reason: { key: 'ACCOUNT_NOT_SOUND' } },
    })
    expect(findings(b)).toEqual([
      expect.objectContaining({ problem: expect.stringMatching(/an earlier state was put back/) }),
    ])
  })

  it('names an emission closed, a register entry added and one deleted, outside the app', async () => {
    const b = await ledger()
    const auditor = await signIn(b, USERS.auditor)
    expect(
      (
        await call(
          b,
          'parties:add',
          { player: 'P-1', relation: 'family', linkedTo: 'Bob', reason: 'his sister' },
          auditor,
        )
      ).ok,
    ).toBe(true)
    sql(b, "UPDATE emissions SET status = 'closed' WHERE emission = 1")
    sql(
      b,
      "INSERT INTO related_parties (player, relation, linked_to, reason, added_by, added_at) VALUES ('P-2', 'other', 'Ann', 'x', 'aude', 't')",
    )
    sql(b, withoutTriggers(b, 'related_parties', "DELETE FROM related_parties WHERE player = 'P-1'"))
    const got = findings(b).map((f) => [f.kind, f.problem])
    expect(got).toEqual(
      expect.arrayContaining([
        ['emission', expect.stringMatching(/does not match its seal/)],
        ['party', expect.stringMatching(/no audit entry accounts for it/)],
        ['party', expect.stringMatching(/is about it, yet it is gone/)],
      ]),
    )
    expect(got).toHaveLength(3)
  })

  it('a second sealing of every row (its record wiped to mint rows) is named', async () => {
    const b = await ledger()
    const at = ledgerOf(b)
    const dir = release(b)
    await b.closeGracefully()
    outsideSql(
      at.location,
      withoutTriggers(at.location, 'ledger_meta', "DELETE FROM ledger_meta WHERE name = 'rows_sealed'"),
    )
    const { openBackend } = await import('../../electron/app/backend')
    const again = openBackend({ dbPath: at.location, keyFile: at.keyFile, threads: 1 })
    try {
      expect(again.services.audit.checkRecords().findings).toEqual([
        expect.objectContaining({ kind: 'ledger', problem: expect.stringMatching(/sealed them/) }),
      ])
    } finally {
      await again.closeGracefully()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
