/**
 * One administrator is one person (docs/trust.md, "One person, one account"). An account that
 * holds a privileged role (admin, manager, auditor) takes part in a two-person control (a claim's
 * steps, a key ceremony) only once a second person has confirmed it: another administrator or an
 * auditor, neither the account itself nor the one who granted it that role. Granting is creating
 * the account, raising it to a privileged role, or an administrator setting its password (who
 * sets a password knows it). The first administrator, and the accounts of a ledger made before
 * the rule, are confirmed by the system (confirmed_by '').
 */
import { AppError, because } from '../../contract/errors'
import type { Role } from '../../contract/define'
import type { AccountProvenance } from '../../contract/types'
import type { Db } from '../../ledger/db'
import { lockSubject } from '../../ledger/row-locks'
import type { AuditService } from '../audit'
import { iso, type Actor, type Clock } from '../common'
import { samePerson } from '../people'

/**
 * The rules over all accounts (one first administrator, names unique by skeleton, the first
 * auditor, the last administrator, confirmations): on a team ledger their writers take turns on
 * this subject (row-locks.ts).
 */
export const ACCOUNTS = 'accounts'

export const PRIVILEGED_ROLES: readonly Role[] = ['admin', 'manager', 'auditor']
export const isPrivileged = (role: Role) => PRIVILEGED_ROLES.includes(role)

interface AccountRow {
  id: number
  name: string
  role: Role
  active: number
  granted_by: string | null
  confirmed_by: string | null
  confirmed_at: string | null
}

const provenance = (r: AccountRow): AccountProvenance => ({
  name: r.name,
  role: r.role,
  grantedBy: r.granted_by,
  confirmedBy: r.confirmed_by,
  confirmedAt: r.confirmed_at,
})

/** Whether the account may take part in a two-person control: a privileged account once confirmed. */
export const isConfirmed = (r: Pick<AccountRow, 'role' | 'confirmed_by'>) =>
  !isPrivileged(r.role) || r.confirmed_by !== null

/** Who granted and who confirmed each named account (a name with no account is left out). */
export function provenanceOf(db: Db, names: (string | null)[]): AccountProvenance[] {
  const wanted = [...new Set(names.filter((n): n is string => n !== null))]
  const byName = db.prepare('SELECT * FROM users WHERE name = ?')
  return wanted
    .map((n) => byName.get(n) as AccountRow | undefined)
    .filter((r): r is AccountRow => r !== undefined)
    .map(provenance)
}

/**
 * The account of whoever takes a step of a two-person control, as the step's audit entry records
 * it; refused when the name is no account, or a privileged account nobody confirmed yet.
 */
export function twoPersonAccount(db: Db, actor: Actor): AccountProvenance {
  const r = db.prepare('SELECT * FROM users WHERE name = ?').get(actor.name) as AccountRow | undefined
  if (!r)
    throw new AppError(
      'FORBIDDEN',
      `${actor.name} is no staff account: a two-person step is taken by a signed-in staff member`,
      because('ACCOUNT_UNKNOWN', { name: actor.name }),
    )
  if (!isConfirmed(r)) {
    throw new AppError(
      'FORBIDDEN',
      `${r.name}'s ${r.role} role, granted by ${r.granted_by ?? 'nobody'}, is not confirmed yet: another administrator or an auditor confirms it on Users before it takes part in a two-person step`,
      because('ACCOUNT_UNCONFIRMED', { name: r.name, role: r.role, grantedBy: r.granted_by ?? '' }),
    )
  }
  return provenance(r)
}

/**
 * The key ceremony's rule (emissions/ceremony.ts): a staff account that is privileged and unconfirmed takes
 * no part. Its callers (the screens, the command line signed in with --user) always act as an
 * account; a name with no account is left to them.
 */
export function refuseUnconfirmed(db: Db, actor: Actor): void {
  const r = db.prepare('SELECT * FROM users WHERE name = ?').get(actor.name) as AccountRow | undefined
  if (r) twoPersonAccount(db, actor)
}

function refuseConfirmation(confirmer: AccountRow, r: AccountRow): void {
  const values = { name: r.name, confirmer: confirmer.name, role: r.role }
  const no = (
    message: string,
    key: 'CONFIRM_SELF' | 'CONFIRM_GRANTER' | 'CONFIRM_UNCONFIRMED' | 'CONFIRM_NOT_NEEDED' | 'CONFIRM_INACTIVE',
  ) => new AppError(key === 'CONFIRM_NOT_NEEDED' ? 'CONFLICT' : 'FORBIDDEN', message, because(key, values))
  if (!isPrivileged(r.role) || r.confirmed_by !== null) {
    throw no(
      `${r.name} needs no confirmation: it is ${r.confirmed_by !== null ? 'confirmed already' : `a ${r.role}`}`,
      'CONFIRM_NOT_NEEDED',
    )
  }
  if (r.active !== 1) throw no(`${r.name} is deactivated: activate it before confirming it`, 'CONFIRM_INACTIVE')
  if (samePerson(confirmer.name, r.name))
    throw no('nobody confirms their own account: another administrator or an auditor does', 'CONFIRM_SELF')
  if (samePerson(confirmer.name, r.granted_by))
    throw no(`${confirmer.name} granted ${r.name} its ${r.role} role: a second person confirms it`, 'CONFIRM_GRANTER')
  if (!isConfirmed(confirmer))
    throw no(`${confirmer.name}'s own ${confirmer.role} role is not confirmed yet`, 'CONFIRM_UNCONFIRMED')
}

/** A second person (an administrator or an auditor) confirms a privileged account; audited (user.confirm). */
export function confirmAccount(
  { db, clock, audit }: { db: Db; clock: Clock; audit: AuditService },
  actor: Actor,
  userId: number,
): void {
  db.transaction(() => {
    lockSubject(db, ACCOUNTS)
    const confirmer = db.prepare('SELECT * FROM users WHERE name = ?').get(actor.name) as AccountRow | undefined
    const r = db.prepare('SELECT * FROM users WHERE id = ?').get(userId) as AccountRow | undefined
    if (!r)
      throw new AppError('NOT_FOUND', `no user with id ${userId}`, {
        field: 'userId',
        ...because('USER_NOT_FOUND', { userId }),
      })
    if (!confirmer)
      throw new AppError(
        'FORBIDDEN',
        `${actor.name} is no staff account: a person signed in confirms an account`,
        because('ACCOUNT_UNKNOWN', { name: actor.name }),
      )
    refuseConfirmation(confirmer, r)
    const problem = audit.accountProblem(userId)
    if (problem) {
      throw new AppError(
        'ILLEGAL_STATE',
        `the account ${r.name} cannot be confirmed: ${problem}`,
        because('ACCOUNT_NOT_SOUND', { name: r.name }),
      )
    }
    db.prepare('UPDATE users SET confirmed_by = ?, confirmed_at = ? WHERE id = ?').run(
      confirmer.name,
      iso(clock()),
      userId,
    )
    audit.record(actor.name, 'user.confirm', `user:${userId}`, { name: r.name, role: r.role, grantedBy: r.granted_by })
  }).immediate()
}
