/**
 * Staff accounts, sign-in and sessions (README.md beside this file): the only entrance from
 * outside the folder.
 */
export { createUsersService, type UsersService } from './accounts'
// two-person controls elsewhere (a claim's steps, a key ceremony) ask whether an account is confirmed
export { provenanceOf, refuseUnconfirmed, twoPersonAccount } from './confirmation'
// its channels' handlers, which electron/app/handlers.ts combines
export { staffHandlers } from './handlers'
