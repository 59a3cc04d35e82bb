/** The simulator's channel. Thin: the dispatcher has checked the arguments and the caller's role. */
import type { Handlers } from '../../contract/dispatch'
import { actorOf } from '../common'
import type { SimulatorService } from '../extensions'

export function simulatorHandlers(s: { simulator: SimulatorService }): Pick<Handlers, 'sales:simulate'> {
  return {
    'sales:simulate': (a, ctx) => s.simulator.start(actorOf(ctx), a),
  }
}
