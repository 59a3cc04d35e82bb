import { describe, expect, it } from 'vitest'
import { emptyStepForm, localDay, refusalOf, stepProblems, stepValid, type StepForm } from './stepForm'
import { assigneeOptions } from './assignees'

const TODAY = '2026-12-07'
const form = (more: Partial<StepForm> = {}): StepForm => ({ ...emptyStepForm(), ...more })
const problems = (f: StepForm) => stepProblems(f, null, TODAY)
const valid = (step: Parameters<typeof stepValid>[0], f: StepForm) => stepValid(step, f, problems(f))

describe('the identity check’s form', () => {
  const full = form({ reference: '18AB12345', name: 'Jeanne Martin', birthDate: '1980-05-14' })
  it('asks the document’s number, the winner’s name and date of birth', () => {
    expect(valid('verify', full)).toBe(true)
    expect(valid('verify', { ...full, name: '' })).toBe(false)
    expect(valid('verify', { ...full, name: ' J ' })).toBe(false)
    expect(valid('verify', { ...full, birthDate: null })).toBe(false)
    expect(valid('verify', { ...full, reference: '123' })).toBe(false)
  })
  it('says a short name, and a date of birth that is not a past day', () => {
    expect(problems({ ...full, name: 'J' }).name).toBe('nameTooShort')
    expect(problems({ ...full, birthDate: '2027-01-01' }).birthDate).toBe('birthDateInvalid')
    expect(problems({ ...full, birthDate: '2025-02-29' }).birthDate).toBe('birthDateInvalid')
    expect(problems(full).birthDate).toBeNull()
  })
  it('says a minor’s refusal beside the date, until the date is changed', () => {
    const refusal = refusalOf(
      { key: 'CLAIM_MINOR', params: { serial: 'S', birthDate: '2015-01-01' } },
      { ...full, birthDate: '2015-01-01' },
    )
    expect(refusal).toEqual({
      field: 'birthDate',
      value: '2015-01-01',
      key: 'minor',
      params: { serial: 'S', birthDate: '2015-01-01' },
    })
    const minor = { ...full, birthDate: '2015-01-01' }
    expect(stepProblems(minor, refusal, TODAY).birthDate).toBe('minor')
    expect(stepValid('verify', minor, stepProblems(minor, refusal, TODAY))).toBe(false)
    expect(stepProblems(full, refusal, TODAY).birthDate).toBeNull()
  })
})

describe('the payment’s form', () => {
  it('asks the method and the reference', () => {
    expect(valid('pay', form({ payment: 'VIR-1', method: 'transfer' }))).toBe(true)
    expect(valid('pay', form({ payment: 'VIR-1' }))).toBe(false)
    expect(valid('pay', form({ payment: 'VI', method: 'cheque' }))).toBe(false)
  })
  it('says a used reference beside its field while it is the one refused', () => {
    const f = form({ payment: 'VIR-1', method: 'cheque' })
    const used = refusalOf({ key: 'PAYMENT_REF_USED', params: { reference: 'VIR-1', serial: 'S2' } }, f)
    expect(stepProblems(f, used, TODAY).payment).toBe('referenceUsed')
    expect(stepProblems({ ...f, payment: 'VIR-2' }, used, TODAY).payment).toBeNull()
  })
  it('leaves any other refusal to a message', () => {
    expect(refusalOf({ key: 'CLAIM_SAME_PERSON', params: {} }, form())).toBeNull()
    expect(refusalOf(undefined, form())).toBeNull()
  })
})

describe('the assignment’s form', () => {
  it('asks a name, and says a refused one beside it', () => {
    expect(valid('assign', form({ assignee: ' ' }))).toBe(false)
    const f = form({ assignee: 'oscar' })
    expect(valid('assign', f)).toBe(true)
    const refused = refusalOf({ key: 'CLAIM_ASSIGNEE', params: { serial: 'S', name: 'oscar' } }, f)
    expect(stepProblems(f, refused, TODAY).assignee).toBe('assigneeRefused')
    expect(stepValid('assign', f, stepProblems(f, refused, TODAY))).toBe(false)
  })
  it('offers active support, manager and admin accounts, by name', () => {
    const acc = (name: string, role: 'admin' | 'support' | 'manager' | 'auditor' | 'operator', active = true) => ({
      name,
      role,
      active,
    })
    const offered = assigneeOptions([
      acc('zoe', 'support'),
      acc('marc', 'manager'),
      acc('aline', 'auditor'),
      acc('oscar', 'operator'),
      acc('sam', 'support', false),
      acc('admin', 'admin'),
    ])
    expect(offered.map((a) => a.name)).toEqual(['admin', 'marc', 'zoe'])
  })
})

describe('the approval and the sign-off', () => {
  it('ask nothing', () => {
    expect(valid('approve', form())).toBe(true)
    expect(valid('signOff', form())).toBe(true)
  })
})

it('writes a day as YYYY-MM-DD in the local time zone', () => {
  expect(localDay(new Date(2026, 0, 5, 23, 30))).toBe('2026-01-05')
})
