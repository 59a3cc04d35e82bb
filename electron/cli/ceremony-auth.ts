/**
 * Who takes a key ceremony's step from the command line: a staff account, signed in with
 * `--user <name> --password-stdin` through the same sign-in as the screens (UsersService.login:
 * the password checked, a failure counted by the sign-in throttle, a locked name refused), and
 * of a role the contract lets take that step. The operating-system account and CARATS_ACTOR name
 * nobody here: the rule that the second person is never the one who opened the ceremony is only
 * worth what the names are, so each must be an account whose password was typed.
 */
import { contract } from '../contract'
import { mayCall } from '../contract/define'
import { AppError, because } from '../contract/errors'
import type { Backend } from '../app/backend'
import type { Actor } from '../services/common'
import { readStdin } from './user-commands'

export type CeremonyChannel = 'ceremony:start' | 'ceremony:commit' | 'ceremony:reveal' | 'ceremony:abandon'

export interface SignInFlags {
  user?: string
  'password-stdin'?: boolean
}

export const SIGN_IN_OPTIONS = { user: { type: 'string' }, 'password-stdin': { type: 'boolean' } } as const

function refuseUnsigned(): never {
  const why = process.env.CARATS_ACTOR?.trim()
    ? "CARATS_ACTOR names nobody for the key ceremony's steps"
    : "the key ceremony's steps are taken by a staff account"
  throw new AppError(
    'NOT_SIGNED_IN',
    `${why}: pass --user <name> and --password-stdin (the password on standard input)`,
    because('CEREMONY_SIGN_IN'),
  )
}

/** Signs `--user` in with the password read from standard input, runs the step as them, then signs them out. */
export async function asSignedIn<T>(
  b: Backend,
  flags: SignInFlags,
  channel: CeremonyChannel,
  step: (actor: Actor) => T,
): Promise<T> {
  if (!flags.user || !flags['password-stdin']) refuseUnsigned()
  const password = (await readStdin()).replace(/\r?\n$/, '')
  const session = await b.services.users.login(flags.user, password)
  try {
    const { name, role } = session.user
    if (!mayCall(contract[channel].access, role)) {
      throw new AppError(
        'FORBIDDEN',
        `${name} (${role}) may not take this step of the key ceremony (${channel})`,
        because('ROLE_FORBIDDEN', { role, channel }),
      )
    }
    return step({ name, role })
  } finally {
    b.services.users.logout(session.token)
  }
}
