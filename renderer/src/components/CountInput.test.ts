// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { defineComponent, h, nextTick, ref } from 'vue'
import CountInput from './CountInput.vue'
import { mountWithApp } from '../testing'

describe('count input', () => {
  it('shows thousands separators and gives back the number typed', async () => {
    const value = ref<number | null>(200_000)
    const Host = defineComponent(
      () => () =>
        h(CountInput, { value: value.value, 'onUpdate:value': (v: number | null) => (value.value = v), min: 1 }),
    )
    const w = mountWithApp(Host)
    const input = w.get('input')
    expect((input.element as HTMLInputElement).value).toBe('200,000')
    await input.setValue('12,345')
    await input.trigger('blur')
    await nextTick()
    expect(value.value).toBe(12_345)
  })
})
