// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { defineComponent, h, ref } from 'vue'
import SerialInput from './SerialInput.vue'
import { answerFor, serialFeedback, type LookupAnswer } from './serialFeedback'
import { mountWithApp } from '../testing'
import { dammCheckDigit, formatSerial } from '../../../game-core/serial'

const good = formatSerial({ emission: 1, block: 2, unit: 1234 })
// Change the check digit: a mistyped digit the Damm check catches.
const badCheck = good.slice(0, -1) + String((Number(good.slice(-1)) + 1) % 10)
const swapped = good.slice(0, 13) + good[14] + good[13] + good.slice(15)

const Host = defineComponent({
  props: { answer: { type: Object as () => LookupAnswer | null, default: null } },
  emits: ['submit'],
  setup(props, { emit }) {
    const v = ref('')
    return () =>
      h(SerialInput, {
        modelValue: v.value,
        'onUpdate:modelValue': (x: string) => (v.value = x),
        answer: props.answer,
        buttonLabel: 'Inspect',
        onSubmit: (s: string) => emit('submit', s),
      })
  },
})

describe('serial input', () => {
  it('says what is wrong for each kind of mistake', () => {
    expect(serialFeedback('').key).toBe('serial.SERIAL_EMPTY')
    expect(serialFeedback('0001-00')).toMatchObject({
      state: 'typing',
      key: 'serial.SERIAL_LENGTH_SHORT',
      params: { length: 6 },
    })
    expect(serialFeedback('0001-002-0001234-55')).toMatchObject({ state: 'error', key: 'serial.SERIAL_LENGTH_LONG' })
    expect(serialFeedback('0001-0O2')).toMatchObject({
      state: 'error',
      key: 'serial.SERIAL_CHARACTER',
      params: { char: 'O', position: 7 },
    })
    expect(serialFeedback('00010-02-0001234-' + good.slice(-1))).toMatchObject({
      state: 'error',
      key: 'serial.SERIAL_FORMAT',
    })
    expect(serialFeedback(badCheck)).toMatchObject({ state: 'error', key: 'serial.SERIAL_CHECK_DIGIT' })
    expect(serialFeedback(swapped)).toMatchObject({ state: 'error', key: 'serial.SERIAL_CHECK_DIGIT' })
    // Emission 0 has a valid check digit but does not exist.
    const body = '00000010000000'
    expect(serialFeedback(body + dammCheckDigit(body))).toMatchObject({
      state: 'error',
      key: 'serial.SERIAL_RANGE',
      params: { field: 'emission', value: 0, min: 1, max: 9999 },
    })
    expect(serialFeedback(good)).toMatchObject({ state: 'ok', serial: good, id: { emission: 1, block: 2, unit: 1234 } })
    expect(serialFeedback(good.replace(/-/g, '')).state).toBe('ok')
  })

  it('checks as you type and submits only a valid serial', async () => {
    const w = mountWithApp(Host)
    const input = w.get('input')
    const feedback = () => w.get('[data-test="serial-feedback"]').text()

    await input.setValue('0001-002')
    expect(feedback()).toBe('7 of 15 digits typed.')
    await input.setValue(badCheck)
    expect(feedback()).toContain('check digit does not match')
    await w.get('form').trigger('submit')
    expect(w.emitted('submit')).toBeUndefined()

    // the form only: whether the unit exists is for the lookup to say
    await input.setValue(good)
    expect(feedback()).toBe('Well-formed serial: emission 0001, block 002, unit 1,234.')
    await w.get('form').trigger('submit')
    expect(w.emitted('submit')).toEqual([[good]])
  })

  it("says the lookup's answer while the field holds its serial, and only then", async () => {
    const other = formatSerial({ emission: 1, block: 2, unit: 1235 })
    const missing: LookupAnswer = { serial: good, state: 'refused', text: 'Not found: emission 1 has no block 2.' }
    expect(answerFor(serialFeedback(good), missing)).toBe(missing)
    expect(answerFor(serialFeedback(good.replace(/-/g, '')), missing)).toBe(missing)
    expect(answerFor(serialFeedback(other), missing)).toBeNull()
    expect(answerFor(serialFeedback(good.slice(0, 8)), missing)).toBeNull()

    const w = mountWithApp(Host, { props: { answer: missing } })
    const input = w.get('input')
    const feedback = w.get('[data-test="serial-feedback"]')
    await input.setValue(good)
    // a well-formed serial of a block that does not exist is red, with the reason, never "valid"
    expect(feedback.text()).toBe('Not found: emission 1 has no block 2.')
    expect(feedback.attributes('data-state')).toBe('refused')
    expect(w.find('.n-input--error-status').exists()).toBe(true)
    // another serial typed: back to the form check, neither red nor green
    await input.setValue(other)
    expect(feedback.text()).toBe('Well-formed serial: emission 0001, block 002, unit 1,235.')
    expect(feedback.attributes('data-state')).toBe('ok')
    expect(w.find('.n-input--error-status').exists()).toBe(false)
    expect(w.find('.n-input--success-status').exists()).toBe(false)
    await w.setProps({ answer: { serial: other, state: 'found', text: 'Unit found.' } })
    expect(feedback.attributes('data-state')).toBe('found')
    expect(w.find('.n-input--success-status').exists()).toBe(true)
  })
})
