import { describe, expect, it } from 'vitest'
import type { ChangeListener } from '../app/change-feed'
import type { Change, ChangeViewer } from '../contract/changes'
import { CHANGES_CHANNEL } from '../contract/changes'
import { createChangeRelay, type ChangeMessage, type WatchingContents } from './changes'

const ORIGIN = 'app://carats'

function contents(id: number) {
  const sent: ChangeMessage[] = []
  const on = new Map<string, () => void>()
  const c: WatchingContents & { destroyed: boolean } = {
    id,
    destroyed: false,
    send: (channel, m) => {
      expect(channel).toBe(CHANGES_CHANNEL)
      sent.push(m)
    },
    isDestroyed: () => c.destroyed,
    once: (event, l) => on.set(event, l),
  }
  return { c, sent, fire: (event: string) => on.get(event)?.() }
}

function relay(sessions: Map<string, ChangeViewer>) {
  let listener: ChangeListener = () => {}
  const source = { subscribe: (l: ChangeListener) => ((listener = l), () => {}) }
  const r = createChangeRelay(source, (t) => sessions.get(t) ?? null, ORIGIN)
  return { r, tell: (changes: Change[]) => listener(changes) }
}

const from = (c: WatchingContents, url = `${ORIGIN}/index.html`) => ({ senderFrame: { url }, sender: c })

describe('the changes sent to the Electron window', () => {
  it("sends a window the changes its session's role may read, until it stops or goes", () => {
    const sessions = new Map<string, ChangeViewer>([['t', { role: 'operator', userId: 1 }]])
    const { r, tell } = relay(sessions)
    const w = contents(1)
    expect(r.watch(from(w.c), 't')).toEqual({ ok: true, result: { watching: true } })
    tell([
      { seq: 1, topic: 'claims', id: 'x' },
      { seq: 2, topic: 'ceremony', id: '3' },
    ])
    expect(w.sent).toEqual([{ event: 'change', changes: [{ seq: 2, topic: 'ceremony', id: '3' }] }])
    r.watch(from(w.c), null)
    tell([{ seq: 3, topic: 'ceremony', id: '3' }])
    expect(w.sent).toHaveLength(1)
    r.watch(from(w.c), 't')
    w.fire('destroyed')
    expect(r.size).toBe(0)
  })

  it('refuses another page, a token that is not a string, and a session that is over', () => {
    const { r } = relay(new Map())
    const w = contents(2)
    expect(r.watch(from(w.c, 'https://evil.example/'), 't')).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } })
    expect(r.watch(from(w.c), 7)).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENTS' } })
    expect(r.watch(from(w.c), 'gone')).toMatchObject({ ok: false, error: { code: 'NOT_SIGNED_IN' } })
    expect(r.size).toBe(0)
  })

  it('reads the role again on a change to the account, and tells a window whose session ended', () => {
    const sessions = new Map<string, ChangeViewer>([['t', { role: 'operator', userId: 1 }]])
    const { r, tell } = relay(sessions)
    const w = contents(3)
    r.watch(from(w.c), 't')
    sessions.set('t', { role: 'support', userId: 1 })
    tell([
      { seq: 4, topic: 'session', id: '1' },
      { seq: 5, topic: 'claims', id: null },
    ])
    expect(w.sent.at(-1)).toEqual({
      event: 'change',
      changes: [
        { seq: 4, topic: 'session', id: '1' },
        { seq: 5, topic: 'claims', id: null },
      ],
    })
    sessions.delete('t')
    tell([{ seq: 6, topic: 'session', id: '1' }])
    expect(w.sent.at(-1)).toEqual({ event: 'ended' })
    expect(r.size).toBe(0)
  })
})
