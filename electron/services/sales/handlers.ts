/** The inspection of a unit: its ticket and its proof. Thin: the dispatcher has checked the arguments and the caller's role. */
import { actorOf, type HandlersOf } from '../common'
import type { TicketsService } from './tickets'

export function salesHandlers(s: { tickets: TicketsService }): HandlersOf<'tickets'> {
  return {
    'tickets:get': (a, ctx) => s.tickets.get(actorOf(ctx), a.serial, a.reason),
    'tickets:proof': (a, ctx) => s.tickets.proof(actorOf(ctx), a.serial, a.reason),
  }
}
