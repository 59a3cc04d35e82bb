import { describe, expect, it } from 'vitest'
import type { EmissionStatus, EmissionSummary, KeyCeremony } from '../../../../electron/contract'
import type { Role } from '../../../../electron/contract/define'
import { canUse } from '../../access'
import { screenActions } from './emissionActions'

const emission = (status: EmissionStatus, more: Partial<EmissionSummary> = {}): EmissionSummary => ({
  emission: 1,
  code: 'E0001',
  startsOn: null,
  status,
  blocks: 1,
  blocksGenerated: 1,
  blocksVerified: 1,
  unitsTotal: 8_016_000,
  unitsSold: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  withdrawnReason: null,
  demo: false,
  jobId: null,
  publishedAt: null,
  publishedBy: null,
  claimThresholdCents: 500_000,
  claimDays: 30,
  closedAt: null,
  claimDeadline: null,
  ...more,
})
const as = (role: Role, e: EmissionSummary, verdict = true, ceremony: KeyCeremony | null = null) =>
  screenActions(e, verdict, (c) => canUse(c, role), ceremony)
const ceremony = (state: KeyCeremony['state']): KeyCeremony => ({
  emission: 1,
  protocol: 2,
  state,
  serverHash: 'ab'.repeat(32),
  startedBy: 'oscar',
  startedAt: '2026-01-01T00:00:00.000Z',
  committedBy: 'aline',
  custodianCommit: 'cd'.repeat(32),
  committedAt: '2026-01-01T00:04:00.000Z',
  abandoned: [],
  custodian: state === 'complete' ? 'aline' : null,
  custodianHash: state === 'complete' ? 'cd'.repeat(32) : null,
  custodianSource: state === 'complete' ? 'dice' : null,
  contributedAt: state === 'complete' ? '2026-01-01T00:05:00.000Z' : null,
})

describe('the emission screen offers only the actions the role may take in its state', () => {
  it('to an operator: the next steps, the import while on sale, simulations only in a demonstration', () => {
    expect(as('operator', emission('created', { blocksGenerated: 0, demo: true }), false)).toEqual([
      'generate',
      'withdraw',
      'certificate',
    ])
    expect(as('operator', emission('verified'))).toEqual(['open', 'verify', 'withdraw', 'certificate', 'report'])
    expect(as('operator', emission('open'))).toEqual(['close', 'verify', 'withdraw', 'import', 'certificate', 'report'])
    expect(as('operator', emission('open', { demo: true }))).toEqual([
      'close',
      'simulate',
      'verify',
      'withdraw',
      'import',
      'certificate',
      'report',
    ])
    // a task running: no step until it ends
    expect(as('operator', emission('open', { jobId: 'j' }))).toEqual(['certificate', 'report'])
  })

  it('to an operator, a real emission’s generation once its key ceremony is complete', () => {
    const created = emission('created', { blocksGenerated: 0 })
    expect(as('operator', created, false)).toEqual(['withdraw', 'certificate'])
    expect(as('operator', created, false, ceremony('awaiting-reveal'))).toEqual(['withdraw', 'certificate'])
    expect(as('operator', created, false, ceremony('complete'))).toEqual(['generate', 'withdraw', 'certificate'])
    expect(as('auditor', created, false, ceremony('complete'))).toEqual(['certificate'])
  })

  it('to an auditor: verification, never generation, sale or withdrawal', () => {
    expect(as('auditor', emission('created', { blocksGenerated: 0 }), false)).toEqual(['certificate'])
    expect(as('auditor', emission('open', { demo: true }))).toEqual(['verify', 'certificate', 'report'])
    expect(as('auditor', emission('closed'))).toEqual(['verify', 'certificate', 'report'])
  })

  it('to support and managers: the documents only', () => {
    for (const role of ['support', 'manager'] as const) {
      expect(as(role, emission('created', { blocksGenerated: 0 }), false)).toEqual(['certificate'])
      expect(as(role, emission('open', { demo: true }))).toEqual(['certificate', 'report'])
    }
  })

  it('never offers a withdrawn emission a step', () => {
    expect(as('admin', emission('withdrawn'))).toEqual(['certificate', 'report'])
  })
})
