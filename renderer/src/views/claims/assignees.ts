import type { Role } from '../../../../electron/contract/define'

/** The roles a claim is given to (claims:assign): support, a manager or an administrator. */
export const ASSIGNABLE_ROLES: readonly Role[] = ['support', 'manager', 'admin']

/** The accounts a claim may be given to: active, of a role that handles claims, by name. */
export function assigneeOptions<A extends { name: string; role: Role; active: boolean }>(accounts: A[]): A[] {
  return accounts
    .filter((a) => a.active && ASSIGNABLE_ROLES.includes(a.role))
    .sort((a, b) => a.name.localeCompare(b.name))
}
