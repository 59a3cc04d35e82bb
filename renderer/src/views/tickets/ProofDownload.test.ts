// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises } from '@vue/test-utils'
import { mountWithApp } from '../../testing'

const call = vi.fn()
vi.mock('../../api', () => ({ api: { call: (...a: unknown[]) => call(...a) }, ApiError: class extends Error {} }))
vi.mock('../../composables/useErrors', () => ({
  useErrors: () => ({
    report: (e: unknown) => {
      throw e
    },
  }),
}))
const { default: ProofDownload } = await import('./ProofDownload.vue')

afterEach(() => call.mockReset())

describe('proof download', () => {
  it('asks tickets:proof for the unit (with the auditor’s reason for an unsold one) and saves it as JSON', async () => {
    const proof = { serial: '0001-001-0000042-3', commitment: 'ab'.repeat(32) }
    call.mockResolvedValue(proof)
    const saved: { name: string; url: string }[] = []
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push({ name: this.download, url: this.href })
    })
    const blobs: Blob[] = []
    URL.createObjectURL = vi.fn((b: Blob) => {
      blobs.push(b)
      return 'blob:proof'
    })
    URL.revokeObjectURL = vi.fn()
    const w = mountWithApp(ProofDownload, { props: { serial: proof.serial, reason: 'complaint 42' } })
    expect(w.text()).toContain('Download the proof')
    await w.get('[data-test="proof-download"]').trigger('click')
    await flushPromises()
    expect(call).toHaveBeenCalledWith('tickets:proof', { serial: proof.serial, reason: 'complaint 42' })
    expect(saved).toEqual([{ name: 'proof-0001-001-0000042-3.json', url: 'blob:proof' }])
    expect(JSON.parse(await blobs[0].text())).toEqual(proof)
    click.mockRestore()
  })

  it('asks without a reason for a sold unit', async () => {
    call.mockResolvedValue({ serial: 'x' })
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {})
    URL.createObjectURL = vi.fn(() => 'blob:x')
    const w = mountWithApp(ProofDownload, { props: { serial: '0001-001-0000001-5' } })
    await w.get('[data-test="proof-download"]').trigger('click')
    await flushPromises()
    expect(call).toHaveBeenCalledWith('tickets:proof', { serial: '0001-001-0000001-5' })
  })
})
