/**
 * One administrator is one person (issue 29, item 3), through the contract: look-alike names refused,
 * a privileged role confirmed again when raised or given a password by someone else. Both engines.
 * The claims' side: electron/services/claims-people.test.ts.
 */
import { describe, expect, it } from 'vitest'
import type { Backend } from '../../electron/app/backend'
import type { Actor } from '../../electron/services/common'
import { PASSWORD, USERS } from './ledger-fixture'
import { call, signIn, useTemplateLedgers, type Reply } from './staff-calls'

const { ledger } = useTemplateLedgers('one-person')
const result = <T>(r: Reply): T => {
  if (!r.ok) throw new Error(r.error.message)
  return r.result as T
}
const ada = (b: Backend) => signIn(b, USERS.admin)
const create = async (b: Backend, name: string, role: string) =>
  result<{ id: number }>(await call(b, 'users:create', { name, role, password: PASSWORD }, await ada(b)))

describe('one person, one account', () => {
  it('refuses a name that looks like another account, deactivated or not', async () => {
    const b = await ledger()
    const admin = await ada(b)
    for (const name of ['аda', 'ADA', 'Ada\u200b', 'suzу']) {
      const r = await call(b, 'users:create', { name, role: 'admin', password: PASSWORD }, admin)
      expect(r, name).toMatchObject({ ok: false, error: { code: expect.stringMatching(/CONFLICT|BAD_ARGUMENTS/) } })
    }
    expect(await call(b, 'users:create', { name: 'аda', role: 'admin', password: PASSWORD }, admin)).toMatchObject({
      ok: false,
      error: { reason: { key: 'USER_NAME_LOOKALIKE' } },
    })
    const vera = await create(b, 'vera', 'support')
    result(await call(b, 'users:update', { userId: vera.id, active: false }, admin))
    expect(await call(b, 'users:create', { name: 'vеra', role: 'manager', password: PASSWORD }, admin)).toMatchObject({
      ok: false,
      error: { reason: { key: 'USER_NAME_LOOKALIKE' } },
    })
  })

  it('keeps an unconfirmed auditor, or a look-alike of the opener, out of the key ceremony', async () => {
    const b = await ledger()
    const admin = await ada(b)
    const otto = await signIn(b, USERS.operator)
    const e = result<{ emission: number }>(await call(b, 'emissions:create', { blocks: 1 }, otto)).emission
    result(await call(b, 'ceremony:start', { emission: e }, otto))
    await create(b, 'sock', 'auditor')
    const commitment = 'a'.repeat(64)
    expect(await call(b, 'ceremony:commit', { emission: e, commitment }, await signIn(b, 'sock'))).toMatchObject({
      ok: false,
      error: { reason: { key: 'ACCOUNT_UNCONFIRMED' } },
    })
    // the opener under another spelling is refused at its creation, so cannot be the second person
    expect(await call(b, 'users:create', { name: 'OTTO', role: 'auditor', password: PASSWORD }, admin)).toMatchObject({
      ok: false,
      error: { code: 'CONFLICT' },
    })
    expect((await call(b, 'ceremony:commit', { emission: e, commitment }, await signIn(b, USERS.auditor))).ok).toBe(
      true,
    )
    expect(b.services.audit.checkRecords().findings).toEqual([])
  })

  it('asks again for a confirmation when an account is raised, or given a password by someone else', async () => {
    const b = await ledger()
    const admin = await ada(b)
    const auditor = await signIn(b, USERS.auditor)
    const suzy = result<{ id: number }[]>(await call(b, 'users:list', {}, admin)).find(
      (u) => (u as unknown as Actor).name === USERS.support,
    )!
    const raised = result<{ awaitingConfirmation: boolean; grantedBy: string }>(
      await call(b, 'users:update', { userId: suzy.id, role: 'manager' }, admin),
    )
    expect(raised).toMatchObject({ awaitingConfirmation: true, grantedBy: USERS.admin })
    result(await call(b, 'users:confirm', { userId: suzy.id }, auditor))
    const reset = result<{ awaitingConfirmation: boolean }>(
      await call(b, 'users:update', { userId: suzy.id, password: 'a new password 2' }, admin),
    )
    expect(reset.awaitingConfirmation).toBe(true)
    expect(await call(b, 'users:confirm', { userId: suzy.id }, await signIn(b, USERS.manager))).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN' },
    })
  })
})
