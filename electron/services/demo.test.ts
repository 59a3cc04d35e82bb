/** The one-click demo: what it asks of the emissions and the simulator, in order. */
import { describe, expect, it } from 'vitest'
import { createDemoService, DEMO_CLAIM_THRESHOLD_CENTS } from './demo'
import type { EmissionsService } from './emissions'
import type { SimulatorService } from './extensions'
import { createJobRegistry } from './jobs'

describe('the one-click demo', () => {
  it('creates a demonstration emission that claims from 1,000 €, then makes, opens and sells it', async () => {
    const jobs = createJobRegistry({ clock: () => new Date() })
    const calls: unknown[][] = []
    const step =
      (name: string) =>
      (...args: unknown[]) => {
        calls.push([name, ...args.slice(1)])
        return jobs.start(name === 'generate' ? 'generate' : 'verify', 7, 1, name, async () => 'done')
      }
    const emissions = {
      create: (...args: unknown[]) => (calls.push(['create', args[1]]), { emission: 7 }),
      generate: step('generate'),
      verify: step('verify'),
      open: (...args: unknown[]) => calls.push(['open', args[1]]),
    } as unknown as EmissionsService
    const simulator = {
      run: async (_a: unknown, opts: unknown) => (calls.push(['simulate', opts]), { sold: 500 }),
    } as unknown as SimulatorService
    const demo = createDemoService({ jobs, emissions, simulator })
    const end = await jobs.wait(demo.start({ name: 'otto', role: 'operator' }, { sales: 500 }).id)
    expect(end).toMatchObject({ state: 'done', message: 'demo emission 7 is open with 500 simulated sales' })
    expect(DEMO_CLAIM_THRESHOLD_CENTS).toBe(100_000)
    expect(calls).toEqual([
      ['create', { blocks: 1, demo: true, claimThresholdCents: 100_000 }],
      ['generate', 7],
      ['verify', 7],
      ['open', 7],
      ['simulate', { emission: 7, sales: 500, seed: 1 }],
    ])
  })
})
