import { h } from 'vue'
import { NButton, NSelect, NSpace, NTag, type DataTableColumns } from 'naive-ui'
import { ROLES, type Role } from '../../../../electron/contract/define'
import type { UserInfo } from '../../../../electron/contract'

export interface UserColumnContext {
  t: (key: string, params?: Record<string, unknown>) => string
  dateTime: (iso: string) => string
  selfId: number | null
  busy: (u: UserInfo) => boolean
  changeRole: (u: UserInfo, role: Role) => void
  setActive: (u: UserInfo, active: boolean) => void
  resetPassword: (u: UserInfo) => void
}

export function createUserColumns(c: UserColumnContext): DataTableColumns<UserInfo> {
  const roleOptions = ROLES.map((r) => ({ label: c.t(`roles.${r}`), value: r }))
  return [
    {
      title: c.t('users.name'),
      key: 'name',
      render: (u) => h('span', null, [h('strong', null, u.name), u.id === c.selfId ? h('span', { class: 'muted' }, ` (${c.t('users.you')})`) : null]),
    },
    {
      title: c.t('users.role'),
      key: 'role',
      width: 220,
      render: (u) =>
        h(NSelect, {
          value: u.role,
          options: roleOptions,
          size: 'small',
          // An administrator cannot demote themselves: the ledger would risk having no admin left.
          disabled: u.id === c.selfId || !u.active || c.busy(u),
          'onUpdate:value': (r: Role) => c.changeRole(u, r),
        }),
    },
    {
      title: c.t('users.active'),
      key: 'active',
      width: 110,
      render: (u) => h(NTag, { size: 'small', round: true, bordered: false, type: u.active ? 'success' : 'default' }, { default: () => (u.active ? c.t('app.yes') : c.t('app.no')) }),
    },
    { title: c.t('users.createdAt'), key: 'createdAt', width: 200, render: (u) => c.dateTime(u.createdAt) },
    {
      title: c.t('users.actions'),
      key: 'actions',
      width: 300,
      render: (u) =>
        h(NSpace, { size: 8, wrap: false }, {
          default: () => [
            h(NButton, { size: 'small', secondary: true, disabled: c.busy(u), onClick: () => c.resetPassword(u) }, { default: () => c.t('users.resetPassword') }),
            u.id === c.selfId
              ? null
              : h(
                  NButton,
                  { size: 'small', type: u.active ? 'error' : 'primary', quaternary: u.active, secondary: !u.active, disabled: c.busy(u), 'data-test': `toggle-${u.name}`, onClick: () => c.setActive(u, !u.active) },
                  { default: () => (u.active ? c.t('users.deactivate') : c.t('users.reactivate')) },
                ),
          ],
        }),
    },
  ]
}
