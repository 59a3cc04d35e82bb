/** Staff's channels: sign-in, sessions, accounts. Thin: the dispatcher has checked the arguments and the caller's role. */
import { actorOf, type HandlersOf } from '../common'
import type { UsersService } from './accounts'

export function staffHandlers(s: { users: UsersService }): HandlersOf<'auth' | 'users'> {
  return {
    'auth:status': (_a, ctx) => ({ needsSetup: s.users.needsSetup(), user: s.users.userOf(ctx.caller?.token ?? null) }),
    'auth:setup': (a) => s.users.setup(a.name, a.password),
    'auth:login': (a) => s.users.login(a.name, a.password),
    'auth:logout': (_a, ctx) => {
      s.users.logout(ctx.caller!.token)
      return { ok: true as const }
    },
    'auth:changePassword': (a, ctx) => s.users.changePassword(ctx.caller!.token, a.oldPassword, a.newPassword),
    'users:list': () => s.users.list(),
    'users:create': (a, ctx) => s.users.create(actorOf(ctx), a),
    'users:update': (a, ctx) => s.users.update(actorOf(ctx), a),
    'users:unlock': (a, ctx) => s.users.unlock(actorOf(ctx), a.userId),
    'users:confirm': (a, ctx) => s.users.confirm(actorOf(ctx), a.userId),
  }
}
