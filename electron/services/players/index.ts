/**
 * Players as support sees them (README.md beside this file): the only entrance from outside the folder.
 */
export { createPlayersService, type PlayersService } from './service'
// its channels' handlers, which electron/app/handlers.ts combines
export { playersHandlers } from './handlers'
