import { describe, expect, it } from 'vitest'
import { canUse } from './access'

describe('canUse', () => {
  it('follows the contract access lists', () => {
    expect(canUse('auth:login', null)).toBe(true)
    expect(canUse('emissions:list', null)).toBe(false)
    expect(canUse('emissions:list', 'support')).toBe(true)
    expect(canUse('emissions:create', 'operator')).toBe(true)
    expect(canUse('emissions:create', 'support')).toBe(false)
    expect(canUse('emissions:verify', 'auditor')).toBe(true)
    expect(canUse('players:last', 'support')).toBe(true)
    expect(canUse('players:last', 'manager')).toBe(false)
    expect(canUse('reports:dashboard', 'manager')).toBe(true)
    expect(canUse('reports:dashboard', 'support')).toBe(false)
    expect(canUse('users:list', 'admin')).toBe(true)
    // auditors read the accounts and confirm privileged ones; only an admin manages them
    expect(canUse('users:list', 'auditor')).toBe(true)
    expect(canUse('users:create', 'auditor')).toBe(false)
    expect(canUse('users:list', 'manager')).toBe(false)
    expect(canUse('audit:list', 'auditor')).toBe(true)
    // the ledger screen: admins and auditors see it and check the ledger; only an admin backs it up
    expect(canUse('ledger:status', 'auditor')).toBe(true)
    expect(canUse('ledger:status', 'operator')).toBe(false)
    expect(canUse('ledger:check', 'auditor')).toBe(true)
    expect(canUse('ledger:backup', 'admin')).toBe(true)
    expect(canUse('ledger:backup', 'auditor')).toBe(false)
    // a claim found by its payment reference: whoever reads claims, not operators (nor the regulator)
    for (const role of ['admin', 'support', 'manager', 'auditor'] as const)
      expect(canUse('claims:find', role)).toBe(true)
    expect(canUse('claims:find', 'operator')).toBe(false)
    expect(canUse('claims:find', 'regulator')).toBe(false)
  })
})
