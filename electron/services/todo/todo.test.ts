/**
 * The to-do list, on the ledger: each role's claims awaiting its step with the four-eyes rules,
 * ceremonies awaiting their second share, the refused imports since the last success.
 */
import { describe, expect, it } from 'vitest'
import type { ImportRecord } from '../../contract/types'
import type { TodoList } from '../../contract/todo-types'
import { STAFF, useClaimsWorlds, type ClaimsWorld } from '../../../test/support/claims-world'
import { randomShareHex } from '../../../test/support/ceremony'
import { createTodoService, type TodoDeps } from './index'

const world = useClaimsWorlds('todo')
const { support: suzy, manager: max, auditor: aude, admin: ada, operator: otto } = STAFF
const PLAYERS = ['alice', 'bob', 'carol']

function todoOf(w: ClaimsWorld, history: ImportRecord[] = []) {
  const deps: TodoDeps = {
    db: w.db,
    claims: w.claims,
    importer: {
      history: ({ pageSize }) => ({ total: history.length, page: 1, pageSize, items: history.slice(0, pageSize) }),
    },
  }
  return createTodoService(deps)
}

const kinds = (l: TodoList) => l.tasks.map((t) => `${t.kind} ${t.subject}`)

describe('claims awaiting my step', () => {
  it('support verifies the pending claims; a manager approves those another person verified, then pays them', async () => {
    const w = await world()
    w.sell(1500, PLAYERS)
    const pending = w.claims.all({}).map((c) => c.serial)
    expect(pending.length).toBeGreaterThan(2)
    const todo = todoOf(w)
    expect(todo.list(suzy)).toMatchObject({ count: pending.length, more: false })
    expect(kinds(todo.list(suzy))).toEqual(pending.map((s) => `claim-verify ${s}`))
    expect(todo.list(max).tasks).toEqual([])
    expect(todo.list(otto).tasks).toEqual([])

    const [a, b] = pending
    w.claims.verify(suzy, a, { document: 'passport', reference: '18AB12345' })
    expect(kinds(todo.list(suzy))).not.toContain(`claim-verify ${a}`)
    expect(kinds(todo.list(max))).toEqual([`claim-approve ${a}`])
    // the approver's own verification would be refused: an admin who verified b is not asked to approve it (nor may)
    w.claims.verify(ada, b, { document: 'passport', reference: '18AB12346' })
    expect(kinds(todo.list(ada))).not.toContain(`claim-verify ${b}`)
    w.claims.approve(max, a)
    expect(kinds(todo.list(max))).toEqual([`claim-pay ${a}`, `claim-approve ${b}`])
    expect(kinds(todo.list(ada))).toContain(`claim-pay ${a}`)
    const task = todo.list(max).tasks[0]
    expect(task).toMatchObject({ emission: w.emission, prizeCents: 10_000, since: w.claims.get(a).claim.soldAt })
    w.claims.pay(max, a, 'VIR-1')
    expect(kinds(todo.list(max))).toEqual([`claim-approve ${b}`])
  })

  it('a related party: the auditor signs off (never the verifier nor the approver), then it may be paid', async () => {
    const w = await world()
    w.parties.add(aude, { player: 'alice', relation: 'staff', linkedTo: 'Paul Martin', reason: 'works at the desk' })
    w.sell(1500, ['alice'])
    const [s] = w.claims.all({}).map((c) => c.serial)
    const todo = todoOf(w)
    expect(todo.list(aude).tasks).toEqual([])
    w.claims.verify(suzy, s, { document: 'passport', reference: '18AB12345' })
    expect(kinds(todo.list(aude))).toContain(`claim-sign-off ${s}`)
    w.claims.approve(max, s)
    expect(kinds(todo.list(max))).not.toContain(`claim-pay ${s}`)
    w.claims.signOff(aude, s)
    expect(kinds(todo.list(aude))).not.toContain(`claim-sign-off ${s}`)
    expect(kinds(todo.list(max))).toContain(`claim-pay ${s}`)
  })

  it('nobody is asked to act on the claims of a player the register links to them', async () => {
    const w = await world()
    w.parties.add(aude, { player: 'bob', relation: 'family', linkedTo: 'SUZY', reason: 'her brother' })
    w.sell(1500, PLAYERS)
    const bobs = w.claims.all({ player: 'bob' }).map((c) => c.serial)
    expect(bobs.length).toBeGreaterThan(0)
    const mine = kinds(todoOf(w).list(suzy))
    for (const s of bobs) expect(mine).not.toContain(`claim-verify ${s}`)
    expect(kinds(todoOf(w).list(ada))).toEqual(expect.arrayContaining(bobs.map((s) => `claim-verify ${s}`)))
  })
})

describe('ceremonies awaiting their second share', () => {
  it('asks another custodian to commit, then the one who committed to reveal; nothing once complete', async () => {
    const w = await world()
    const e = w.emissions.create(otto, { blocks: 1 }).emission
    const todo = todoOf(w)
    w.ceremony.start(otto, e)
    expect(kinds(todo.list(otto))).toEqual([])
    for (const who of [aude, max, ada]) expect(kinds(todo.list(who))).toEqual([`ceremony-commit ${e}`])
    expect(todo.list(suzy).tasks).toEqual([])
    expect(todo.list(aude).tasks[0]).toMatchObject({ emission: e, detail: otto.name })
    const share = randomShareHex()
    const commitment = Buffer.from(await crypto.subtle.digest('SHA-256', Buffer.from(share, 'hex'))).toString('hex')
    w.ceremony.commit(aude, e, commitment)
    expect(kinds(todo.list(aude))).toEqual([`ceremony-reveal ${e}`])
    expect(todo.list(max).tasks).toEqual([])
    w.ceremony.reveal(aude, e, { share })
    expect(todo.list(aude).tasks).toEqual([])
  })
})

describe('a refused import to fix', () => {
  const record = (seq: number, result: ImportRecord['result']) =>
    ({ seq, at: `2026-05-0${seq}T10:00:00.000Z`, fileName: `feed-${seq}.jsonl`, result }) as ImportRecord

  it('lists the refusals since the last import that went in, for those who import', async () => {
    const w = await world()
    const todo = todoOf(w, [record(9, 'refused'), record(8, 'refused'), record(7, 'imported'), record(6, 'refused')])
    expect(kinds(todo.list(otto))).toEqual(['import-refused 9', 'import-refused 8'])
    expect(todo.list(otto).tasks[0]).toMatchObject({ detail: 'feed-9.jsonl', since: '2026-05-09T10:00:00.000Z' })
    expect(kinds(todo.list(ada))).toEqual(['import-refused 9', 'import-refused 8'])
    expect(todo.list(max).tasks).toEqual([])
    expect(todoOf(w, [record(3, 'already'), record(2, 'refused')]).list(otto).tasks).toEqual([])
  })
})
