import { checkSerial, MAX_BLOCK, MAX_EMISSION, type UnitId } from '../../../game-core/serial'
import { CARATS } from '../../../game-core/carats'
import { blockNo, emissionNo } from '../format'

export type Feedback =
  | { state: 'empty' | 'typing' | 'error'; key: string; params: Record<string, string | number> }
  | { state: 'ok'; key: string; params: Record<string, string | number>; serial: string; id: UnitId }

/**
 * What a lookup answered for one serial. While the field holds that serial, the answer speaks in
 * place of the form check: a form can be correct and the unit still not exist, or be refused.
 */
export interface LookupAnswer {
  serial: string
  state: 'searching' | 'found' | 'reason' | 'refused'
  text: string
}

/** How the field looks: `ok` is a well-formed serial not looked up yet, `found` one that was. */
export type FieldState = Feedback['state'] | LookupAnswer['state']

/** The answer for the serial in the field, or null while the field holds another (or no valid) serial. */
export function answerFor(feedback: Feedback, answer: LookupAnswer | null | undefined): LookupAnswer | null {
  return answer && feedback.state === 'ok' && feedback.serial === answer.serial ? answer : null
}

/** The input's colour: green only for a unit found, red for a bad form or a refusal. */
export function inputStatus(state: FieldState): 'success' | 'warning' | 'error' | undefined {
  if (state === 'found') return 'success'
  if (state === 'reason') return 'warning'
  if (state === 'error' || state === 'refused') return 'error'
  return undefined
}

const LIMITS: Record<string, [number, number]> = {
  emission: [1, MAX_EMISSION],
  block: [1, MAX_BLOCK],
  unit: [0, CARATS.blockSize - 1],
}

/** A unit's emission and block numbered as its serial and its ticket's page write them (0002, 001). */
const namedUnit = (id: UnitId) => ({ emission: emissionNo(id.emission), block: blockNo(id.block), unit: id.unit })

/**
 * What to tell someone typing a serial, as an i18n key and its parameters: of its form only (a
 * well-formed serial is "correct", not "valid": whether its unit exists is the lookup's answer).
 * A serial that is only too short is still being typed: that is said gently, not as an error.
 */
export function serialFeedback(input: string): Feedback {
  const r = checkSerial(input, CARATS.blockSize)
  if (r.ok) return { state: 'ok', key: 'serial.ok', params: namedUnit(r.id), serial: r.serial, id: r.id }
  switch (r.code) {
    case 'SERIAL_EMPTY':
      return { state: 'empty', key: 'serial.SERIAL_EMPTY', params: {} }
    case 'SERIAL_LENGTH': {
      const length = Number(r.params.length)
      return length < 15
        ? { state: 'typing', key: 'serial.SERIAL_LENGTH_SHORT', params: { length } }
        : { state: 'error', key: 'serial.SERIAL_LENGTH_LONG', params: { length } }
    }
    case 'SERIAL_RANGE': {
      const field = String(r.params.field)
      const [min, max] = LIMITS[field] ?? [0, 0]
      return { state: 'error', key: 'serial.SERIAL_RANGE', params: { field, value: r.params.value, min, max } }
    }
    default:
      return { state: 'error', key: `serial.${r.code}`, params: r.params }
  }
}
