/** Players' channels, as support uses them. Thin: the dispatcher has checked the arguments and the caller's role. */
import type { HandlersOf } from '../common'
import type { PlayersService } from './service'

export function playersHandlers(s: { players: PlayersService }): HandlersOf<'players'> {
  return {
    'players:search': (a) => s.players.search(a.query, a.page, a.pageSize),
    'players:last': (a) => s.players.last(a.player),
    'players:history': ({ player, ...request }) => s.players.history(player, request),
  }
}
