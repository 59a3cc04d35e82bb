// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { defineComponent, h } from 'vue'
import { NDataTable } from 'naive-ui'
import { ROLES } from '../../../../electron/contract/define'
import type { UserAccount } from '../../../../electron/contract'
import { createAppI18n } from '../../i18n'
import fr from '../../i18n/fr'
import en from '../../i18n/en'
import { mountWithApp } from '../../testing'
import { createUserColumns } from './columns'

const { t } = createAppI18n('en').global
const tr = (k: string, p?: Record<string, unknown>) => t(k, p ?? {})

const account = (over: Partial<UserAccount>): UserAccount => ({
  id: 2,
  name: 'suzy',
  role: 'support',
  active: true,
  createdAt: '2026-01-05T08:00:00.000Z',
  lastLoginAt: null,
  lockedUntil: null,
  grantedBy: 'ada',
  confirmedBy: null,
  confirmedAt: null,
  awaitingConfirmation: false,
  recordProblem: null,
  ...over,
})

describe('the users table', () => {
  it('shows who confirmed each privileged account, and a button to confirm one awaited, to another person than who granted it', async () => {
    const confirm = vi.fn()
    const columns = createUserColumns({
      t: tr,
      dateTime: (iso) => iso,
      until: () => '',
      selfId: 5,
      busy: () => false,
      changeRole: vi.fn(),
      setActive: vi.fn(),
      resetPassword: vi.fn(),
      unlock: vi.fn(),
      confirm,
      manage: false,
      selfName: 'aude',
    })
    const data = [
      account({ id: 1, name: 'ada', role: 'admin', grantedBy: null, confirmedBy: '' }),
      account({ id: 2, name: 'mo', role: 'manager', awaitingConfirmation: true }),
      account({ id: 3, name: 'max', role: 'manager', confirmedBy: 'aude' }),
      account({ id: 4, name: 'sock', role: 'auditor', grantedBy: 'aude', awaitingConfirmation: true }),
      account({
        id: 6,
        name: 'mallory',
        role: 'admin',
        grantedBy: null,
        awaitingConfirmation: true,
        recordProblem: 'no audit entry accounts for it',
      }),
    ]
    const w = mountWithApp(
      defineComponent({ render: () => h(NDataTable, { columns, data, rowKey: (u: UserAccount) => u.id }) }),
    )
    const rows = w.findAll('tbody tr')
    expect(rows[0].get('[data-test="confirmed-ada"]').text()).toContain('Confirmed by the system')
    expect(rows[1].get('[data-test="awaiting-mo"]').text()).toBe('Awaiting confirmation')
    expect(rows[1].text()).toContain('Role granted by ada')
    expect(rows[2].get('[data-test="confirmed-max"]').text()).toContain('Confirmed by aude')
    // who granted it does not confirm it; an auditor reads the table without managing it
    expect(rows[3].find('[data-test="confirm-sock"]').exists()).toBe(false)
    expect(rows[1].find('[data-test="toggle-mo"]').exists()).toBe(false)
    // an account changed outside the app is said so, and offered no confirmation
    expect(rows[4].get('[data-test="unsound-mallory"]').text()).toBe('Changed outside the app')
    expect(rows[4].find('[data-test="confirm-mallory"]').exists()).toBe(false)
    await rows[1].get('[data-test="confirm-mo"]').trigger('click')
    expect(confirm).toHaveBeenCalledWith(data[1])
  })

  it("shows each account's last sign-in, which accounts are locked and until when, with a button to unlock them", async () => {
    const unlock = vi.fn()
    const columns = createUserColumns({
      t: tr,
      dateTime: (iso) => `at ${iso.slice(0, 16)}`,
      until: () => '10:43',
      selfId: 1,
      busy: () => false,
      changeRole: vi.fn(),
      setActive: vi.fn(),
      resetPassword: vi.fn(),
      unlock,
      confirm: null,
      manage: true,
      selfName: 'ada',
    })
    const data = [
      account({ id: 1, name: 'ada', role: 'admin', lastLoginAt: '2026-03-02T09:00:00.000Z' }),
      account({ id: 2, name: 'suzy', lockedUntil: '2026-03-02T09:42:30.000Z' }),
    ]
    const w = mountWithApp(
      defineComponent({ render: () => h(NDataTable, { columns, data, rowKey: (u: UserAccount) => u.id }) }),
    )
    const rows = w.findAll('tbody tr')
    expect(rows).toHaveLength(2)
    expect(rows[0].text()).toContain('at 2026-03-02T09:00')
    expect(rows[0].text()).not.toContain('Locked')
    expect(rows[0].find('[data-test="unlock-ada"]').exists()).toBe(false)
    expect(rows[1].text()).toContain('never')
    expect(rows[1].get('[data-test="locked-suzy"]').text()).toBe('Locked until 10:43')
    await rows[1].get('[data-test="unlock-suzy"]').trigger('click')
    expect(unlock).toHaveBeenCalledWith(data[1])
  })

  it('says in one sentence what each role lets an account do, in French and English', () => {
    for (const messages of [fr, en]) {
      const said = messages.users.roleConsequence as Record<string, string>
      expect(Object.keys(said).sort()).toEqual([...ROLES].sort())
      for (const r of ROLES) expect(said[r]).toMatch(/^[^.]+\.$/)
    }
    expect(en.users.roleConsequence.auditor).toMatch(/can see unsold units/)
    expect(en.users.roleConsequence.admin).toMatch(/manages staff accounts and backs up the ledger/)
  })
})
