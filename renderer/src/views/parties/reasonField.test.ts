import { describe, expect, it } from 'vitest'
import { ApiError } from '../../api'
import { fieldRefusal, reasonProblem } from './reasonField'

/** Says the key and its params, so that what is asked of the messages shows. */
const t = (key: string, params?: Record<string, unknown>) => (params ? `${key} ${JSON.stringify(params)}` : key)

describe('a reason field', () => {
  it('says nothing while empty, then refuses fewer than 3 characters, spaces aside', () => {
    expect(reasonProblem('', t)).toBeNull()
    expect(reasonProblem('ok', t)).toBe('parties.reasonTooShort')
    expect(reasonProblem(' a \n ', t)).toBe('parties.reasonTooShort')
    expect(reasonProblem('why', t)).toBeNull()
  })
})

describe('a refusal tied to a field', () => {
  const exists = new ApiError({
    code: 'CONFLICT',
    message: 'the register already links x to y (entry 3)',
    field: 'player',
    reason: { key: 'PARTY_EXISTS', params: { player: 'x', linkedTo: 'y' } },
  })

  it('is said under the field the server names, from its reason', () => {
    expect(fieldRefusal(exists, ['player', 'linkedTo'], t)).toEqual({
      field: 'player',
      text: 'Reasons.PARTY_EXISTS {"player":"x","linkedTo":"y","hint":""}',
    })
  })

  it('is left to the message when it names no field of the form, no reason, or is no api error', () => {
    expect(fieldRefusal(exists, ['reason'], t)).toBeNull()
    expect(fieldRefusal(new ApiError({ code: 'FORBIDDEN', message: 'no', field: 'player' }), ['player'], t)).toBeNull()
    expect(fieldRefusal(new Error('boom'), ['player'], t)).toBeNull()
  })
})
