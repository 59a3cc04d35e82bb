import { describe, expect, it } from 'vitest'
import { describeError } from './useErrors'
import { ApiError, TransportError } from '../api'
import { createAppI18n } from '../i18n'

const { t } = createAppI18n('en').global
const tr = (k: string, p?: Record<string, unknown>) => t(k, p ?? {})

describe('describeError', () => {
  it('says what to do for each api error, with the server detail', () => {
    expect(describeError(new ApiError({ code: 'FORBIDDEN', message: 'x' }), tr)).toMatch(/ask an administrator/)
    expect(describeError(new ApiError({ code: 'BAD_ARGUMENTS', message: 'must not be empty', field: 'name' }), tr)).toBe('Check the field “name”: must not be empty')
    expect(describeError(new ApiError({ code: 'ILLEGAL_STATE', message: 'emission 1 cannot open: it is created.' }), tr)).toBe(
      'Not possible in the current state: emission 1 cannot open: it is created. Refresh and follow the steps in order.',
    )
    expect(describeError(new ApiError({ code: 'NOT_SIGNED_IN', message: 'x' }), tr)).toMatch(/sign in again/)
  })
  it('tells an unreachable server from a bug', () => {
    expect(describeError(new TransportError('down'), tr)).toMatch(/cannot be reached/)
    expect(describeError(new Error('boom'), tr)).toMatch(/Unexpected error: boom/)
  })
})
