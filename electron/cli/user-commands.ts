/**
 * The staff accounts from the command line: `user add` (the password on standard input, never on
 * the command line), `user list` (with each account's lockout), and `user unlock`, the way back
 * in for an account locked by failed sign-ins: anyone who can reach the sign-in can lock `admin`
 * out by typing 5 wrong passwords, and the screen that unlocks needs an administrator signed in.
 * Who acts is the operating-system user (ledger-commands.ts), audited as such.
 */
import { AppError, because } from '../contract/errors'
import { ROLES, type Role } from '../contract/define'
import type { UserAccount } from '../contract/types'
import { UsageError, type Command } from './io'
import { options, print, withBackend } from './command-kit'
import { cliText } from './text-args'

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

const userAdd: Command = (ctx) =>
  withBackend(ctx, async (b) => {
    const { values } = options(ctx, {
      name: { type: 'string' },
      role: { type: 'string' },
      'password-stdin': { type: 'boolean' },
    })
    if (!values.name) throw new UsageError('--name is required')
    if (!values.role || !(ROLES as readonly string[]).includes(values.role))
      throw new UsageError(`--role must be one of ${ROLES.join(', ')}`)
    if (!values['password-stdin'])
      throw new UsageError('give the password on standard input with --password-stdin (never on the command line)')
    const password = (await readStdin()).replace(/\r?\n$/, '')
    if (password.length < 8) throw new UsageError('the password must have at least 8 characters')
    const role = values.role as Role
    if (b.services.users.needsSetup() && role !== 'admin')
      throw new AppError('SETUP_REQUIRED', 'the first account must be an administrator (--role admin)')
    const u = b.services.users.create(b.actor, {
      name: cliText(values.name.trim(), '--name', 'a name'),
      role,
      password,
    })
    print(ctx, u, () => `user ${u.name} (${u.role}) created`)
    return 0
  })

function accountLine(u: UserAccount, width: number): string {
  const lock = u.lockedUntil ? `locked until ${u.lockedUntil}` : ''
  const last = `last sign-in ${u.lastLoginAt ?? 'never'}`
  return `${u.name.padEnd(width)}  ${u.role.padEnd(8)}  ${(u.active ? 'active' : 'inactive').padEnd(8)}  ${lock ? `${lock}  ` : ''}${last}`
}

const userList: Command = (ctx) =>
  withBackend(ctx, (b) => {
    options(ctx, {})
    const list = b.services.users.list()
    const width = Math.max(4, ...list.map((u) => u.name.length))
    print(ctx, list, () =>
      list.length === 0
        ? 'no account yet (carats user add --name N --role admin --password-stdin)'
        : list.map((u) => accountLine(u, width)).join('\n'),
    )
    return 0
  })

/** The account of a name, compared without case as the sign-in compares names. */
function accountNamed(accounts: UserAccount[], name: string): UserAccount {
  const u = accounts.find((a) => a.name === name) ?? accounts.find((a) => a.name.toLowerCase() === name.toLowerCase())
  if (!u)
    throw new AppError(
      'NOT_FOUND',
      `there is no account named ${JSON.stringify(name)} (carats user list)`,
      because('USER_NOT_FOUND', { userId: name }),
    )
  return u
}

const userUnlock: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { pos } = options(ctx, {}, 1)
    if (!pos[0]) throw new UsageError('name the account: carats user unlock <name>')
    const users = b.services.users
    const account = accountNamed(users.list(), pos[0])
    const had = users.throttle.row(account.name) !== undefined
    const u = users.unlock(b.actor, account.id)
    print(ctx, { ...u, unlocked: had }, () =>
      had
        ? `${u.name} unlocked: its failed sign-ins are forgotten (audited)`
        : `${u.name} was not locked: nothing to do`,
    )
    return 0
  })

export const userCommands: Record<string, Command> = {
  'user add': userAdd,
  'user list': userList,
  'user unlock': userUnlock,
}
