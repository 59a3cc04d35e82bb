import { describe, expect, it } from 'vitest'
import { daysPendingText, documentText, methodText, winnerText } from './claimText'

/** The key and its parameters, to see what is said without the messages. */
const t = (key: string, params: Record<string, unknown> = {}) =>
  Object.keys(params).length ? `${key} ${JSON.stringify(params)}` : key
const AT = '2026-01-01T00:00:00.000Z'

describe('a claim said masked', () => {
  it('says the winner by initials and year of birth, the initials alone without the year', () => {
    expect(winnerText(t, { winner: { initials: 'J. M.', birthYear: '1980' } })).toBe(
      'claims.facts.winnerMasked {"initials":"J. M.","year":"1980"}',
    )
    expect(winnerText(t, { winner: { initials: 'J. M.', birthYear: null } })).toBe('J. M.')
    expect(winnerText(t, { winner: null })).toBeNull()
  })

  it('says the document with its number as the backend masked it', () => {
    const verified = { by: 'sophie', at: AT, document: 'passport' as const, reference: '…2345' }
    expect(documentText(t, { verified })).toBe(
      'claims.facts.documentMasked {"document":"claims.documents.passport","reference":"…2345"}',
    )
    expect(documentText(t, { verified: null })).toBeNull()
  })

  it('says the payment method once recorded', () => {
    const paid = { by: 'marc', at: AT, reference: 'VIR-1' }
    expect(methodText(t, { paid: { ...paid, method: 'cheque' } })).toBe('claims.methods.cheque')
    expect(methodText(t, { paid: { ...paid, method: null } })).toBeNull()
    expect(methodText(t, { paid: null })).toBeNull()
  })

  it('says the days pending of an open claim, counted for the plural', () => {
    const plural = (key: string, params: Record<string, unknown>, n: number) => `${key} ${String(params.n)} (${n})`
    expect(daysPendingText(plural, (n) => `#${n}`, { daysPending: 3 })).toBe('claims.facts.days #3 (3)')
    expect(daysPendingText(plural, String, { daysPending: 0 })).toBe('claims.facts.days 0 (0)')
    expect(daysPendingText(plural, String, { daysPending: null })).toBeNull()
  })
})
