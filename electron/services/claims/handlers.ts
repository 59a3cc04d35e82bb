/** Claims' channels: the claims and their steps, the register of related parties. Thin: the dispatcher has checked the arguments and the caller's role. */
import { actorOf, type HandlersOf } from '../common'
import type { ClaimsService } from './desk'
import type { RelatedPartiesService } from './related-parties'

export function claimsHandlers(s: {
  claims: ClaimsService
  parties: RelatedPartiesService
}): HandlersOf<'claims' | 'parties'> {
  return {
    'claims:list': (a) => s.claims.list(a),
    'claims:get': (a) => s.claims.get(a.serial),
    'claims:find': (a) => s.claims.findPaid(a.reference),
    'claims:verify': (a, ctx) => s.claims.verify(actorOf(ctx), a.serial, a.identity),
    'claims:approve': (a, ctx) => s.claims.approve(actorOf(ctx), a.serial),
    'claims:signOff': (a, ctx) => s.claims.signOff(actorOf(ctx), a.serial),
    'claims:pay': (a, ctx) => s.claims.pay(actorOf(ctx), a.serial, a.reference, a.method),
    'claims:assign': (a, ctx) => s.claims.assign(actorOf(ctx), a.serial, a.to),
    'claims:identity': (a, ctx) => s.claims.identity(actorOf(ctx), a.serial, a.reason),
    'claims:reject': (a, ctx) => s.claims.reject(actorOf(ctx), a.serial, a.reason),
    'claims:csv': (a) => s.claims.csv(a),
    'claims:flags': (a) => s.claims.flags(a.player),
    'claims:expire': (_a, ctx) => s.claims.expire(actorOf(ctx)),
    'claims:deadlines': () => s.claims.nearingDeadline(),
    'parties:list': (a) => s.parties.list(a.includeRemoved),
    'parties:add': (a, ctx) => s.parties.add(actorOf(ctx), a),
    'parties:remove': (a, ctx) => s.parties.remove(actorOf(ctx), a.id, a.reason),
  }
}
