/**
 * Prize claims and the register of related parties (README.md beside this file): the only
 * entrance from outside the folder.
 */
export { createClaimsService, type ClaimsService } from './desk'
export { STEP_ROLES, type AwaitedClaim, type AwaitedStep } from './awaiting'
export type { ClaimsDeps } from './context'
export { createClaimFigures } from './figures'
export { createRelatedParties, type RelatedPartiesService } from './related-parties'
export { claimTotalsOf, claimsDashboard } from './totals'
// the one place a claim is made, with its sale (the sales service's batches)
export { createClaimWriter } from './writer'
// its channels' handlers, which electron/app/handlers.ts combines
export { claimsHandlers } from './handlers'
