/** The change feed read from the audit log, on the ledger: what each step tells, and nothing else. */
import { describe, expect, it } from 'vitest'
import { STAFF, useClaimsWorlds } from '../../../test/support/claims-world'
import { auditHead, changesAfter, collapse, touchesOf } from './index'

const world = useClaimsWorlds('changes')
const { support: suzy, operator: otto, admin: ada } = STAFF

describe('the changes since an entry of the audit log', () => {
  it('names the claim a step touched, the emission a ceremony touched, the account an admin changed', async () => {
    const w = await world()
    w.sell(1500, ['alice', 'bob'])
    const [serial] = w.claims.all({}).map((c) => c.serial)
    const start = auditHead(w.db)
    expect(changesAfter(w.db, start)).toEqual({ last: start, changes: [] })

    w.claims.verify(suzy, serial, { document: 'passport', reference: '18AB12345' })
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    w.ceremony.start(otto, e)
    const suzyId = w.users.list().find((u) => u.name === suzy.name)!.id
    await w.users.update(ada, { userId: suzyId, role: 'manager' })

    const { last, changes } = changesAfter(w.db, start)
    expect(last).toBe(auditHead(w.db))
    expect(changes.map(({ topic, id }) => `${topic} ${id}`)).toEqual([
      `claims ${serial}`,
      `ceremony ${e}`,
      `emissions ${e}`,
      `users ${suzyId}`,
      `session ${suzyId}`,
    ])
    expect(changes.every((c) => c.seq > start && c.seq <= last)).toBe(true)
    // read in pieces: nothing lost, nothing told twice
    const first = changesAfter(w.db, start, 1)
    expect(first.changes.map((c) => c.topic)).toEqual(['claims'])
    expect(changesAfter(w.db, first.last).changes).toHaveLength(changes.length - 1)
    expect(changesAfter(w.db, last).changes).toEqual([])
  })

  it('a log behind what was seen (a ledger put back) tells every topic as a whole', async () => {
    const w = await world()
    const head = auditHead(w.db)
    const back = changesAfter(w.db, head + 50)
    expect(back.last).toBe(head)
    expect(back.changes.map((c) => c.topic)).toEqual(['ceremony', 'emissions', 'claims', 'imports', 'users', 'parties'])
    expect(back.changes.every((c) => c.id === null)).toBe(true)
  })
})

describe('what an entry touches', () => {
  it('tells no sign-in nor a look at an identity; an import touches imports, claims and emissions', () => {
    expect(touchesOf('auth.login', 'user:3')).toEqual([])
    expect(touchesOf('claim.identity-view', 'unit:0001-001-0000001-5')).toEqual([])
    expect(touchesOf('sales.import-rejected', 'import:rejected').map((t) => t.topic)).toEqual([
      'imports',
      'claims',
      'emissions',
    ])
    expect(touchesOf('block.generate', 'block:4/2')).toEqual([{ topic: 'emissions', id: '4' }])
    expect(touchesOf('auth.password-change', 'user:9')).toContainEqual({ topic: 'session', id: '9' })
  })

  it('one change per topic and id, the latest kept, in the order of their latest', () => {
    const c = (seq: number, id: string) => ({ seq, topic: 'claims' as const, id })
    expect(collapse([c(1, 'a'), c(2, 'b'), c(3, 'a')])).toEqual([c(2, 'b'), c(3, 'a')])
  })
})
