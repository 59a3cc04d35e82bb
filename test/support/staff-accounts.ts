/**
 * The claims' staff as confirmed accounts (a claim's step is a staff account's, staff/confirmation.ts),
 * for the claims world and the claims bench: no test runner here, so a benchmark may use it.
 */
import type { AuditService } from '../../electron/services/audit'
import type { Actor } from '../../electron/services/common'
import type { Db } from '../../electron/ledger/db'
import { createUsersService, type UsersService } from '../../electron/services/staff'

export const STAFF: Record<'admin' | 'operator' | 'support' | 'manager' | 'auditor', Actor> = {
  admin: { name: 'ada', role: 'admin' },
  operator: { name: 'otto', role: 'operator' },
  support: { name: 'suzy', role: 'support' },
  manager: { name: 'max', role: 'manager' },
  auditor: { name: 'aude', role: 'auditor' },
}
export const STAFF_PASSWORD = 'correct horse battery'

/**
 * The staff as accounts: a step of a claim is a staff account's (staff/confirmation.ts). The
 * administrator makes them; the first auditor is confirmed by the system, the managers (max, mia) and the
 * second auditor (ava) by that auditor.
 */
export function staffAccounts(w: { db: Db; audit: AuditService }, clock: () => Date): UsersService {
  const users = createUsersService({ db: w.db, clock, audit: w.audit })
  users.setup(STAFF.admin.name, STAFF_PASSWORD)
  const made = (['operator', 'support', 'auditor', 'manager'] as const).map((role) =>
    users.create(STAFF.admin, { name: STAFF[role].name, role, password: STAFF_PASSWORD }),
  )
  users.confirm(STAFF.auditor, made[3].id)
  // a second manager and a second auditor, confirmed by the first auditor
  for (const [name, role] of [
    ['mia', 'manager'],
    ['ava', 'auditor'],
  ] as const)
    users.confirm(STAFF.auditor, users.create(STAFF.admin, { name, role, password: STAFF_PASSWORD }).id)
  return users
}
