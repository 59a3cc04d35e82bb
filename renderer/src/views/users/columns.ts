import { h } from 'vue'
import { NButton, NSelect, NSpace, NTag, type DataTableColumns } from 'naive-ui'
import { ROLES, type Role } from '../../../../electron/contract/define'
import type { UserAccount } from '../../../../electron/contract'

export interface UserColumnContext {
  t: (key: string, params?: Record<string, unknown>) => string
  dateTime: (iso: string) => string
  /** When a sign-in lockout ends, as the screens say it ("10:43"). */
  until: (iso: string) => string
  selfId: number | null
  busy: (u: UserAccount) => boolean
  changeRole: (u: UserAccount, role: Role) => void
  setActive: (u: UserAccount, active: boolean) => void
  resetPassword: (u: UserAccount) => void
  unlock: (u: UserAccount) => void
  /** A second person confirms a privileged account (admins and auditors); null: the viewer may not. */
  confirm: ((u: UserAccount) => void) | null
  /** The viewer manages accounts (an administrator); an auditor reads them and confirms. */
  manage: boolean
  /** The viewer's name: who granted an account its role does not confirm it. */
  selfName: string | null
}

/** Sooner first; never signed in goes last either way up. */
const byTime = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1)

export function createUserColumns(c: UserColumnContext): DataTableColumns<UserAccount> {
  const roleOptions = ROLES.map((r) => ({ label: c.t(`roles.${r}`), value: r }))
  const columns: DataTableColumns<UserAccount> = [
    {
      title: c.t('users.name'),
      key: 'name',
      minWidth: 120,
      sorter: (a, b) => a.name.localeCompare(b.name),
      render: (u) =>
        h('span', null, [
          h('strong', null, u.name),
          u.id === c.selfId ? h('span', { class: 'muted' }, ` (${c.t('users.you')})`) : null,
        ]),
    },
    {
      title: c.t('users.role'),
      key: 'role',
      width: 180,
      sorter: (a, b) => ROLES.indexOf(a.role) - ROLES.indexOf(b.role),
      // filtered by the screen (useListFilters), so that its count is the table's
      filter: true,
      filterMultiple: true,
      filterOptions: roleOptions,
      render: (u) =>
        h(NSelect, {
          value: u.role,
          options: roleOptions,
          size: 'small',
          // An administrator cannot demote themselves: the ledger would risk having no admin left.
          disabled: !c.manage || u.id === c.selfId || !u.active || c.busy(u),
          'data-test': `role-${u.name}`,
          'onUpdate:value': (r: Role) => c.changeRole(u, r),
        }),
    },
    {
      title: c.t('users.active'),
      key: 'active',
      // room for the title beside its sort and filter buttons ("Act/if" wrapped at 100)
      width: 132,
      sorter: (a, b) => Number(b.active) - Number(a.active),
      filter: true,
      filterMultiple: false,
      filterOptions: [
        { label: c.t('app.yes'), value: 'true' },
        { label: c.t('app.no'), value: 'false' },
      ],
      render: (u) =>
        h(
          NTag,
          { size: 'small', round: true, bordered: false, type: u.active ? 'success' : 'default' },
          { default: () => (u.active ? c.t('app.yes') : c.t('app.no')) },
        ),
    },
    {
      // the last sign-in, and below it a lockout with the button that lifts it
      title: c.t('users.lastLoginAt'),
      key: 'lastLoginAt',
      width: 240,
      sorter: (a, b) => byTime(a.lastLoginAt, b.lastLoginAt),
      render: (u) =>
        h('div', { class: 'sign-in' }, [
          u.lastLoginAt
            ? h('span', null, c.dateTime(u.lastLoginAt))
            : h('span', { class: 'muted' }, c.t('users.never')),
          u.lockedUntil
            ? h(
                NSpace,
                { size: 6, align: 'center', wrap: false, style: 'margin-top: 4px' },
                {
                  default: () => [
                    h(
                      NTag,
                      { size: 'small', round: true, bordered: false, type: 'warning', 'data-test': `locked-${u.name}` },
                      { default: () => c.t('users.lockedUntil', { when: c.until(u.lockedUntil!) }) },
                    ),
                    h(
                      NButton,
                      {
                        size: 'tiny',
                        type: 'warning',
                        secondary: true,
                        disabled: c.busy(u),
                        'data-test': `unlock-${u.name}`,
                        onClick: () => c.unlock(u),
                      },
                      { default: () => c.t('users.unlock') },
                    ),
                  ],
                },
              )
            : null,
        ]),
    },
    {
      // who granted a privileged role and who confirmed it (docs/trust.md, one person, one account)
      title: c.t('users.confirmation'),
      key: 'confirmation',
      width: 240,
      render: (u) => confirmationCell(c, u),
    },
    {
      title: c.t('users.createdAt'),
      key: 'createdAt',
      width: 180,
      sorter: (a, b) => byTime(a.createdAt, b.createdAt),
      render: (u) => c.dateTime(u.createdAt),
    },
    {
      title: c.t('users.actions'),
      key: 'actions',
      width: 270,
      render: (u) =>
        h(
          NSpace,
          { size: 8, wrap: false },
          {
            default: () => [
              c.manage
                ? h(
                    NButton,
                    { size: 'small', secondary: true, disabled: c.busy(u), onClick: () => c.resetPassword(u) },
                    { default: () => c.t('users.resetPassword') },
                  )
                : null,
              u.id === c.selfId || !c.manage
                ? null
                : h(
                    NButton,
                    {
                      size: 'small',
                      type: u.active ? 'error' : 'primary',
                      quaternary: u.active,
                      secondary: !u.active,
                      disabled: c.busy(u),
                      'data-test': `toggle-${u.name}`,
                      onClick: () => c.setActive(u, !u.active),
                    },
                    { default: () => (u.active ? c.t('users.deactivate') : c.t('users.reactivate')) },
                  ),
            ],
          },
        ),
    },
  ]
  // an auditor reads the accounts and confirms them: no column of actions they cannot take
  return c.manage ? columns : columns.filter((col) => !('key' in col) || col.key !== 'actions')
}

/** The confirmation of a privileged role: by whom, or awaited with the button of whoever may give it. */
function confirmationCell(c: UserColumnContext, u: UserAccount) {
  const granted = u.grantedBy ? h('div', { class: 'muted' }, c.t('users.grantedBy', { name: u.grantedBy })) : null
  if (u.recordProblem) {
    const tag = h(
      NTag,
      {
        size: 'small',
        round: true,
        bordered: false,
        type: 'error',
        title: u.recordProblem,
        'data-test': `unsound-${u.name}`,
      },
      { default: () => c.t('users.notSound') },
    )
    return h('div', null, [tag, h('div', { class: 'muted', lang: 'en' }, u.recordProblem)])
  }
  if (u.awaitingConfirmation) {
    const mayConfirm = c.confirm !== null && u.id !== c.selfId && u.grantedBy !== c.selfName && u.active
    return h('div', null, [
      h(
        NSpace,
        { size: 6, align: 'center', wrap: false },
        {
          default: () => [
            h(
              NTag,
              { size: 'small', round: true, bordered: false, type: 'warning', 'data-test': `awaiting-${u.name}` },
              { default: () => c.t('users.awaiting') },
            ),
            mayConfirm
              ? h(
                  NButton,
                  {
                    size: 'tiny',
                    type: 'primary',
                    secondary: true,
                    disabled: c.busy(u),
                    'data-test': `confirm-${u.name}`,
                    onClick: () => c.confirm!(u),
                  },
                  { default: () => c.t('users.confirm') },
                )
              : null,
          ],
        },
      ),
      granted,
    ])
  }
  if (u.confirmedBy === null) return h('span', { class: 'muted' }, '—')
  const by = u.confirmedBy === '' ? c.t('users.confirmedBySystem') : c.t('users.confirmedBy', { name: u.confirmedBy })
  return h('div', { 'data-test': `confirmed-${u.name}` }, [h('span', null, by), granted])
}
