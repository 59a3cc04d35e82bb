/**
 * The contract's handlers: thin. The dispatcher has already validated the arguments and checked
 * the caller's role against the channel's access; each handler names the actor and calls a service.
 */
import { AppError, because } from '../contract/errors'
import type { HandlerContext, Handlers } from '../contract/dispatch'
import type { Actor } from '../services/common'
import type { Services } from './context'

function actorOf(ctx: HandlerContext): Actor {
  if (!ctx.caller) throw new AppError('NOT_SIGNED_IN', 'your session has ended: sign in again', because('SESSION_ENDED'))
  return { name: ctx.caller.name, role: ctx.caller.role }
}

export function createHandlers(s: Services): Handlers {
  return {
    'auth:status': (_a, ctx) => ({ needsSetup: s.users.needsSetup(), user: s.users.userOf(ctx.caller?.token ?? null) }),
    'auth:setup': (a) => s.users.setup(a.name, a.password),
    'auth:login': (a) => s.users.login(a.name, a.password),
    'auth:logout': (_a, ctx) => {
      s.users.logout(ctx.caller!.token)
      return { ok: true as const }
    },
    'auth:changePassword': (a, ctx) => s.users.changePassword(ctx.caller!.token, a.oldPassword, a.newPassword),

    'emissions:list': () => s.emissions.list(),
    'emissions:get': (a) => s.emissions.get(a.emission),
    'emissions:create': (a, ctx) => s.emissions.create(actorOf(ctx), a),
    'emissions:generate': (a, ctx) => s.emissions.generate(actorOf(ctx), a.emission),
    'emissions:verify': (a, ctx) => s.emissions.verify(actorOf(ctx), a.emission),
    'emissions:open': (a, ctx) => s.emissions.open(actorOf(ctx), a.emission),
    'emissions:close': (a, ctx) => s.emissions.close(actorOf(ctx), a.emission),
    'emissions:withdraw': (a, ctx) => s.emissions.withdraw(actorOf(ctx), a.emission, a.reason),
    'emissions:certificate': (a) => s.emissions.certificate(a.emission),
    'emissions:demo': (a, ctx) => s.demo.start(actorOf(ctx), a),
    'ceremony:get': (a) => s.ceremony.get(a.emission),
    'ceremony:start': (a, ctx) => s.ceremony.start(actorOf(ctx), a.emission),
    'ceremony:commit': (a, ctx) => s.ceremony.commit(actorOf(ctx), a.emission, a.commitment),
    'ceremony:reveal': ({ emission, ...share }, ctx) => s.ceremony.reveal(actorOf(ctx), emission, share),
    'ceremony:abandon': (a, ctx) => s.ceremony.abandon(actorOf(ctx), a.emission, a.reason),
    'blocks:get': (a) => s.emissions.block(a.emission, a.block),
    'verifications:latest': (a) => s.verifications.latest(a.emission),
    'verifications:report': (a) => s.verifications.report(a.emission, a.verification),

    'jobs:get': (a) => s.jobs.get(a.jobId),
    'jobs:list': () => s.jobs.list(),
    'jobs:cancel': (a, ctx) => {
      const job = s.jobs.cancel(a.jobId)
      s.audit.record(actorOf(ctx).name, 'job.cancel', `job:${job.id}`, { kind: job.kind, emission: job.emission })
      return job
    },

    'sales:simulate': (a, ctx) => s.simulator.start(actorOf(ctx), a),
    'sales:import': (a, ctx) => s.importer.importContent(actorOf(ctx), a.content, a.fileName, a.sha256),
    'sales:imports': (a) => s.importer.history(a),

    'tickets:get': (a, ctx) => s.tickets.get(actorOf(ctx), a.serial, a.reason),
    'tickets:proof': (a, ctx) => s.tickets.proof(actorOf(ctx), a.serial, a.reason),
    'players:search': (a) => s.players.search(a.query, a.page, a.pageSize),
    'players:last': (a) => s.players.last(a.player),
    'players:history': ({ player, ...request }) => s.players.history(player, request),

    'reports:depletion': (a) => s.reports.depletion(a),
    'reports:dashboard': (a) => s.reports.dashboard(a),
    'reports:csv': (a) => s.reports.csv(a),
    'alerts:list': () => s.alerts.list(),

    'claims:list': (a) => s.claims.list(a),
    'claims:get': (a) => s.claims.get(a.serial),
    'claims:verify': (a, ctx) => s.claims.verify(actorOf(ctx), a.serial, a.identity),
    'claims:approve': (a, ctx) => s.claims.approve(actorOf(ctx), a.serial),
    'claims:signOff': (a, ctx) => s.claims.signOff(actorOf(ctx), a.serial),
    'claims:pay': (a, ctx) => s.claims.pay(actorOf(ctx), a.serial, a.reference),
    'claims:reject': (a, ctx) => s.claims.reject(actorOf(ctx), a.serial, a.reason),
    'claims:csv': (a) => s.claims.csv(a),
    'claims:flags': (a) => s.claims.flags(a.player),
    'parties:list': (a) => s.parties.list(a.includeRemoved),
    'parties:add': (a, ctx) => s.parties.add(actorOf(ctx), a),
    'parties:remove': (a, ctx) => s.parties.remove(actorOf(ctx), a.id, a.reason),

    'users:list': () => s.users.list(),
    'users:create': (a, ctx) => s.users.create(actorOf(ctx), a),
    'users:update': (a, ctx) => s.users.update(actorOf(ctx), a),
    'users:unlock': (a, ctx) => s.users.unlock(actorOf(ctx), a.userId),
    'users:confirm': (a, ctx) => s.users.confirm(actorOf(ctx), a.userId),
    'audit:list': (a) => s.audit.list(a),
    'audit:verify': () => s.audit.verify(),
    'audit:csv': (a) => s.audit.csv(a),

    'ledger:status': () => s.ledger.status(),
    'ledger:check': (a, ctx) => s.ledger.startCheck(actorOf(ctx), a.prizes),
    'ledger:backup': (_a, ctx) => s.ledger.startBackup(actorOf(ctx)),

    'settings:ledger': () => s.ledgerSetting.view(),
    'settings:ledgerSet': (a, ctx) => s.ledgerSetting.save(actorOf(ctx), a),
    'settings:ledgerTest': (a) => s.ledgerSetting.test(a),
  }
}
