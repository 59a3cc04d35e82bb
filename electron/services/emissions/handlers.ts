/** Emissions' channels: the emissions, their key ceremonies, blocks and verdicts, and the one-click demo. Thin: the dispatcher has checked the arguments and the caller's role. */
import { actorOf, type HandlersOf } from '../common'
import type { DemoService } from '../demo'
import type { CeremonyService } from './ceremony'
import type { EmissionsService } from './service'
import type { Verifications } from './verifications'

export function emissionsHandlers(s: {
  emissions: EmissionsService
  ceremony: CeremonyService
  verifications: Verifications
  demo: DemoService
}): HandlersOf<'emissions' | 'ceremony' | 'blocks' | 'verifications'> {
  return {
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
  }
}
