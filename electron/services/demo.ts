/**
 * The one-click demo: an emission of one block, generated, verified and opened, then a simulated
 * sales history, as one `demo` task whose steps are the generate and verify tasks and the simulation.
 */
import { AppError, because } from '../contract/errors'
import type { JobInfo } from '../contract/types'
import type { Actor } from './common'
import type { EmissionsService } from './emissions'
import type { SimulatorService } from './extensions'
import type { JobContext, JobRegistry } from './jobs'

export interface DemoService {
  start(actor: Actor, args: { sales: number }): JobInfo
}

const POLL_MS = 100
/**
 * The demo's claim threshold: 1,000 €, so that a demo's few hundred thousand sales hold a few
 * dozen claims for its claims screens (at the default 5,000 € a block has only four).
 */
export const DEMO_CLAIM_THRESHOLD_CENTS = 100_000

export function createDemoService({
  jobs,
  emissions,
  simulator,
}: {
  jobs: JobRegistry
  emissions: EmissionsService
  simulator: SimulatorService
}): DemoService {
  /** Waits for a sub-task, mirroring its progress into the demo's share [from, from + span) and passing a cancel on. */
  async function follow(ctx: JobContext, sub: JobInfo, from: number, span: number, label: string): Promise<void> {
    const timer = setInterval(() => {
      const j = jobs.get(sub.id)
      ctx.progress(from + (j.total > 0 ? (span * j.done) / j.total : 0), 100, `${label}: ${j.message}`)
    }, POLL_MS)
    const onAbort = () => {
      if (jobs.get(sub.id).state === 'running') jobs.cancel(sub.id)
    }
    ctx.signal.addEventListener('abort', onAbort)
    try {
      const end = await jobs.wait(sub.id)
      if (end.state === 'cancelled')
        throw new AppError('CANCELLED', 'the demo was cancelled', because('TASK_CANCELLED'))
      if (end.state !== 'done') throw new Error(`${label} failed: ${end.message}`)
    } finally {
      clearInterval(timer)
      ctx.signal.removeEventListener('abort', onAbort)
    }
  }

  return {
    start(actor, { sales }) {
      return jobs.start('demo', null, 100, 'creating the demo emission', async (ctx) => {
        const e = emissions.create(actor, { blocks: 1, demo: true, claimThresholdCents: DEMO_CLAIM_THRESHOLD_CENTS })
        await follow(ctx, emissions.generate(actor, e.emission), 0, 35, `emission ${e.emission}: generating`)
        await follow(ctx, emissions.verify(actor, e.emission), 35, 35, `emission ${e.emission}: verifying`)
        emissions.open(actor, e.emission)
        const { sold } = await simulator.run(
          actor,
          { emission: e.emission, sales, seed: 1 },
          {
            signal: ctx.signal,
            progress: (done, total, message) =>
              ctx.progress(
                70 + (30 * done) / Math.max(1, total),
                100,
                message ?? `emission ${e.emission}: ${done} of ${total} sales`,
              ),
          },
        )
        return `demo emission ${e.emission} is open with ${sold} simulated sales`
      })
    },
  }
}
