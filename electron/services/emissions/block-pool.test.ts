import { describe, expect, it } from 'vitest'
import { CARATS } from '../../../game-core/carats'
import type { GameDefinition } from '../../../game-core/rules'
import { verifyBlock } from '../../../game-core/verify'
import { nodePrimitives } from '../../crypto/node-primitives'
import { verifyBlockInWorkers } from './block-pool'
import { AppError } from '../../contract/errors'

// A block of 200,000 units with a proportionally smaller table: quick, yet many chunks per worker.
const small: GameDefinition = {
  ...CARATS,
  id: 'small-test',
  blockSize: 200_000,
  tiers: [
    { amountCents: 50_000_000, count: 1 },
    { amountCents: 100_000, count: 25 },
    { amountCents: 10_000, count: 2_000 },
    { amountCents: 5_000, count: 1_000 },
    { amountCents: 1_500, count: 5_000 },
    { amountCents: 1_000, count: 25_000 },
    { amountCents: 500, count: 17_500 },
  ],
  printed: undefined,
  compositions: CARATS.compositions.filter((c) => c.amountCents !== 1_000_000),
}
const ref = { emission: 3, block: 7, secret: new Uint8Array(32).map((_, i) => i * 7 + 1) }

describe('verifyBlockInWorkers', () => {
  it('splits the block over threads and finds the same commitment as one thread', async () => {
    const single = verifyBlock(small, nodePrimitives, ref)
    const progress: number[] = []
    const parallel = await verifyBlockInWorkers(small, ref, {
      threads: 3,
      progressEveryMs: 5,
      onProgress: (done) => progress.push(done),
    })
    expect(parallel.sound).toBe(true)
    expect(parallel.commitment).toBe(single.commitment)
    expect(parallel.tiers).toEqual(single.tiers)
    expect(parallel.units).toBe(200_000)
    expect(progress.at(-1)).toBe(200_000)
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1])
  })

  it('is cancelled by its signal and says so', async () => {
    const controller = new AbortController()
    const run = verifyBlockInWorkers(CARATS, ref, {
      threads: 2,
      progressEveryMs: 5,
      signal: controller.signal,
      onProgress: (done) => {
        if (done > 0) controller.abort()
      },
    })
    const error = await run.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).code).toBe('CANCELLED')
  })

  it('refuses to start when already cancelled', async () => {
    const controller = new AbortController()
    controller.abort()
    await expect(verifyBlockInWorkers(small, ref, { signal: controller.signal })).rejects.toMatchObject({
      code: 'CANCELLED',
    })
  })
})
