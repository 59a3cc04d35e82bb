import { checkSerial, MAX_BLOCK, MAX_EMISSION, type UnitId } from '../../../game-core/serial'
import { CARATS } from '../../../game-core/carats'

export type Feedback =
  | { state: 'empty' | 'typing' | 'error'; key: string; params: Record<string, string | number> }
  | { state: 'ok'; key: string; params: Record<string, string | number>; serial: string; id: UnitId }

const LIMITS: Record<string, [number, number]> = { emission: [1, MAX_EMISSION], block: [1, MAX_BLOCK], unit: [0, CARATS.blockSize - 1] }

/**
 * What to tell someone typing a serial, as an i18n key and its parameters. A serial that is only
 * too short is still being typed: that is said gently, not as an error.
 */
export function serialFeedback(input: string): Feedback {
  const r = checkSerial(input, CARATS.blockSize)
  if (r.ok) return { state: 'ok', key: 'serial.ok', params: { ...r.id }, serial: r.serial, id: r.id }
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
