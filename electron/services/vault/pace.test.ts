/** The app's rounds: at once while a backlog drains, giving way while the ledger outpaces the vault. */
import { describe, expect, it } from 'vitest'
import { GIVE_WAY_FACTOR, nextWait } from './pace'

describe('the pace of the rounds', () => {
  const round = { sent: 10_000, tookMs: 40, intervalMs: 1_000 }
  it('waits the interval when there was nothing to send', () => {
    expect(nextWait({ ...round, sent: 0, behind: 0, behindBefore: 0 })).toBe(1_000)
  })
  it('goes on at once while the backlog shrinks, and after the last of it', () => {
    expect(nextWait({ ...round, behind: 50_000, behindBefore: 60_000 })).toBe(1)
    expect(nextWait({ ...round, behind: 0, behindBefore: 10_000 })).toBe(1)
  })
  it('gives way, nine times the round, while the ledger is written faster than the vault receives', () => {
    expect(nextWait({ ...round, behind: 70_000, behindBefore: 60_000 })).toBe(40 * GIVE_WAY_FACTOR)
    expect(nextWait({ ...round, tookMs: 2, behind: 70_000, behindBefore: 70_000 })).toBe(50)
  })
})
