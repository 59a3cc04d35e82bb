// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises } from '@vue/test-utils'
import { h } from 'vue'
import FormModal from './FormModal.vue'
import { mountWithApp } from '../testing'

/** A modal form whose submit waits on a promise the test settles. */
function modal(onSubmit: () => unknown, canSubmit = true) {
  return mountWithApp(FormModal, {
    attachTo: document.body,
    props: { show: true, title: 'A form', width: 400, submitLabel: 'Send', canSubmit, submitTest: 'send', onSubmit },
    slots: { default: () => [h('input', { type: 'text', name: 'one' }), h('textarea', { name: 'two' })] },
  })
}

const form = () => document.body.querySelector('form') as HTMLFormElement
const submit = () => form().dispatchEvent(new Event('submit', { cancelable: true }))
const button = () => document.body.querySelector('[data-test="send"]') as HTMLButtonElement

describe('a modal form', () => {
  afterEach(() => {
    document.body.innerHTML = ''
  })

  it('has one way to be sent: its submit button belongs to the form and has no click handler of its own', () => {
    const w = modal(() => {})
    expect(button().type).toBe('submit')
    expect(button().getAttribute('form')).toBe(form().id)
    expect(form().id).not.toBe('')
    w.unmount()
  })

  it('sends once while a submit is pending, and again once it is done', async () => {
    let settle = () => {}
    const onSubmit = vi.fn(() => new Promise<void>((r) => (settle = r)))
    const w = modal(onSubmit)
    submit()
    submit()
    submit()
    await flushPromises()
    expect(onSubmit).toHaveBeenCalledTimes(1)
    settle()
    await flushPromises()
    submit()
    expect(onSubmit).toHaveBeenCalledTimes(2)
    w.unmount()
  })

  it('sends nothing while it cannot be sent', async () => {
    const onSubmit = vi.fn()
    const w = modal(onSubmit, false)
    submit()
    await flushPromises()
    expect(onSubmit).not.toHaveBeenCalled()
    w.unmount()
  })

  it('is sent by Ctrl+Enter in a text area, not by Enter alone there', async () => {
    const onSubmit = vi.fn()
    const w = modal(onSubmit)
    const area = document.body.querySelector('textarea')!
    area.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }))
    await flushPromises()
    expect(onSubmit).not.toHaveBeenCalled()
    area.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', ctrlKey: true, bubbles: true, cancelable: true }))
    await flushPromises()
    expect(onSubmit).toHaveBeenCalledTimes(1)
    w.unmount()
  })
})
