// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import type { Claim } from '../../../../electron/contract/claims-types'
import { mountWithApp } from '../../testing'
import ClaimSteps from './ClaimSteps.vue'

const claim = (more: Partial<Claim>): Claim => ({
  serial: '0001-001-0000042-7',
  emission: 1,
  demo: false,
  prizeCents: 10_000,
  player: 'p-17',
  soldAt: '2026-01-01T10:00:00.000Z',
  status: 'pending',
  related: false,
  needsSignOff: false,
  verified: null,
  approved: null,
  signedOff: null,
  paid: null,
  rejected: null,
  expired: null,
  winner: null,
  assigned: null,
  daysPending: null,
  ...more,
})

describe('a claim’s steps', () => {
  it('end with its expiry, who marked it and when, after the steps taken before it', () => {
    const w = mountWithApp(ClaimSteps, {
      props: {
        claim: claim({
          status: 'expired',
          verified: { by: 'sophie', at: '2026-01-05T09:00:00.000Z', document: 'passport', reference: 'X1234567' },
          expired: { by: 'marc', at: '2026-03-02T08:00:00.000Z' },
        }),
      },
    })
    const steps = w
      .findAll('[data-test^="step-"]')
      .filter((s) => /^step-(won|verified|expired)$/.test(s.attributes('data-test')!))
    expect(steps.map((s) => s.attributes('data-test'))).toEqual(['step-won', 'step-verified', 'step-expired'])
    const expired = w.get('[data-test="step-expired"]')
    expect(expired.text()).toContain('Expired')
    expect(expired.text()).toContain('by marc')
    expect(expired.text()).toContain('2 Mar 2026')
    expect(expired.text()).toContain('it will not be paid')
  })

  it('shows no expiry on a claim that did not expire', () => {
    const w = mountWithApp(ClaimSteps, { props: { claim: claim({}) } })
    expect(w.find('[data-test="step-expired"]').exists()).toBe(false)
  })
})
