// @vitest-environment happy-dom
/** The custodian's share: the commitment sent is the SHA-256 shown; the share stays in the tab for its reveal; the reveal sends only the share committed to. */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises } from '@vue/test-utils'
import { mountWithApp } from '../../testing'

const call = vi.fn()
const messages: { kind: string; text: string }[] = []
vi.mock('../../api', () => ({ api: { call: (...a: unknown[]) => call(...a) }, ApiError: class extends Error {} }))
vi.mock('../../composables/useErrors', () => ({
  useErrors: () => ({
    attempt: (f: () => unknown) => f(),
    report: (e: unknown) => {
      throw e
    },
  }),
}))
vi.mock('naive-ui', async (original) => {
  const m = await original<typeof import('naive-ui')>()
  const say = (kind: string) => (text: string) => void messages.push({ kind, text })
  return {
    ...m,
    useMessage: () => ({ success: say('success'), error: say('error'), warning: say('warning'), info: say('info') }),
  }
})
const { default: ContributeShareModal } = await import('./ContributeShareModal.vue')

const body = () => document.body
const q = (test: string) => body().querySelector(`[data-test="${test}"]`) as HTMLElement | null
const shownHash = () => q('share-preview')?.querySelector('[data-hash]')?.getAttribute('data-hash') ?? null
const submit = async () => {
  body()
    .querySelector('form')!
    .dispatchEvent(new Event('submit', { cancelable: true }))
  await flushPromises()
}
/** Lets WebCrypto's digests settle (they resolve outside Vue's queue). */
const settle = async () => {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 5))
    await flushPromises()
  }
}
const mountModal = (props: Record<string, unknown> = {}) =>
  mountWithApp(ContributeShareModal, { attachTo: document.body, props: { show: true, emission: 3, ...props } })
/** SHA-256 of hex bytes, by WebCrypto directly (not the screen's own helper). */
async function sha256OfHex(hex: string): Promise<string> {
  const bytes = new Uint8Array(hex.match(/../g)!.map((x) => parseInt(x, 16)))
  return [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('')
}
const recorded = (hash: string) => ({ emission: 3, state: 'awaiting-reveal', custodianCommit: hash })
/** The share kept in this tab for emission 3 (nobody signed in: the name is empty). */
const kept = () =>
  JSON.parse(sessionStorage.getItem('carats.ceremony.share.3.') ?? 'null') as {
    commitment: string
    share?: string
    dice?: string
  } | null

afterEach(() => {
  call.mockReset()
  messages.length = 0
  body().innerHTML = ''
  sessionStorage.clear()
})

describe('committing to a share drawn in the window', () => {
  it('sends only the SHA-256 shown, and keeps the 32 bytes in the tab for the reveal', async () => {
    const w = mountModal()
    await flushPromises()
    expect(shownHash()).toBeNull()
    expect((q('contribute-submit') as HTMLButtonElement).disabled).toBe(true)
    q('draw-share')!.click()
    await settle()
    const shown = shownHash()
    expect(shown).toMatch(/^[0-9a-f]{64}$/)
    call.mockImplementation(async (_c: string, a: { commitment: string }) => recorded(a.commitment))
    await submit()
    expect(call).toHaveBeenCalledTimes(1)
    const [channel, args] = call.mock.calls[0] as [string, { emission: number; commitment: string }]
    expect(channel).toBe('ceremony:commit')
    expect(args).toEqual({ emission: 3, commitment: shown })
    const share = kept()!
    expect(share.commitment).toBe(shown)
    expect(await sha256OfHex(share.share!)).toBe(shown)
    expect(messages).toEqual([
      {
        kind: 'success',
        text: 'Commitment recorded: the server has drawn its share. Note its hash, then reveal yours.',
      },
    ])
    expect(w.emitted('contributed')?.[0]).toEqual([recorded(shown!)])
    w.unmount()
  })

  it('says loudly when the backend records another hash than the one shown', async () => {
    const w = mountModal()
    q('draw-share')!.click()
    await settle()
    const shown = shownHash()
    call.mockResolvedValue(recorded('00'.repeat(32)))
    await submit()
    expect(messages).toEqual([
      {
        kind: 'error',
        text: `The recorded hash (${'00'.repeat(32)}) is not the one shown (${shown}): report it before generating.`,
      },
    ])
    w.unmount()
  })
})

describe('committing to dice rolls', () => {
  async function typeRolls(text: string) {
    const area = body().querySelector('[data-test="dice-rolls"] textarea') as HTMLTextAreaElement
    area.value = text
    area.dispatchEvent(new Event('input'))
    await settle()
  }

  it('counts the rolls as they are typed and says what is wrong beside the field, tied to it', async () => {
    const w = mountModal()
    ;(q('source-dice')!.querySelector('input') as HTMLInputElement).click()
    await flushPromises()
    await typeRolls('1 2 3 4 5 6 '.repeat(6))
    expect(q('dice-count')!.textContent).toBe('36 / 100 rolls')
    expect(q('dice-problem')!.textContent).toBe('36 rolls typed: at least 100 are needed for a share of 32 bytes')
    const area = body().querySelector('[data-test="dice-rolls"] textarea') as HTMLTextAreaElement
    const help = body().querySelector(`#${area.getAttribute('aria-describedby')}`)
    expect(help?.contains(q('dice-problem'))).toBe(true)
    expect(area.getAttribute('aria-invalid')).toBe('true')
    expect(shownHash()).toBeNull()
    await typeRolls('1 2 3 4 5 6 9')
    expect(q('dice-problem')!.textContent).toBe('“9” is not the roll of a die: type digits 1 to 6 only')
    w.unmount()
  })

  it('shows, once there are enough, the hash of the share the backend makes from them, and sends the rolls', async () => {
    const w = mountModal()
    ;(q('source-dice')!.querySelector('input') as HTMLInputElement).click()
    await flushPromises()
    const rolls = '3 1 4 1 5 2 6 5 3 5\n'.repeat(10)
    await typeRolls(rolls)
    expect(q('dice-count')!.textContent).toBe('100 / 100 rolls')
    expect(q('dice-problem')).toBeNull()
    // known answer: SHA256(shareFromDice(rolls)) by game-core/seeding.ts with the Node primitives
    const expected = '611253a21a7c5fc112f7de97d05a6c59eb02ad374b55211670aca9fe4bd27278'
    expect(shownHash()).toBe(expected)
    call.mockResolvedValue(recorded(expected))
    await submit()
    expect(call).toHaveBeenCalledWith('ceremony:commit', { emission: 3, commitment: expected })
    expect(kept()).toEqual({ commitment: expected, dice: rolls })
    expect(messages).toEqual([
      {
        kind: 'success',
        text: 'Commitment recorded: the server has drawn its share. Note its hash, then reveal yours.',
      },
    ])
    w.unmount()
  })

  it('takes, to reveal, only the rolls that give the share committed to', async () => {
    const expected = '611253a21a7c5fc112f7de97d05a6c59eb02ad374b55211670aca9fe4bd27278'
    const w = mountModal({ mode: 'reveal', commitment: expected })
    await flushPromises()
    expect(q('source-dice')).toBeNull()
    await typeRolls('3 1 4 1 5 2 6 5 3 6\n'.repeat(10))
    expect(q('reveal-match')!.textContent).toBe('This is not the share committed to: check your rolls.')
    expect((q('contribute-submit') as HTMLButtonElement).disabled).toBe(true)
    const rolls = '3 1 4 1 5 2 6 5 3 5\n'.repeat(10)
    await typeRolls(rolls)
    expect(q('reveal-match')!.textContent).toBe('This is the share committed to.')
    call.mockResolvedValue({ emission: 3, state: 'complete', custodianHash: expected })
    await submit()
    expect(call).toHaveBeenCalledWith('ceremony:reveal', { emission: 3, dice: rolls })
    expect(messages).toEqual([
      { kind: 'success', text: 'Share revealed: the recorded hash is your commitment. The ceremony is complete.' },
    ])
    w.unmount()
  })
})
