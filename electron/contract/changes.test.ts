import { describe, expect, it } from 'vitest'
import { contract } from './index'
import {
  CHANGE_TOPICS,
  changesFor,
  changeVisibleTo,
  isChange,
  TOPIC_CHANNEL,
  TOPIC_READERS,
  type Change,
} from './changes'
import { ROLES } from './define'

describe('the changes a session hears of', () => {
  it('each topic is told to exactly the roles that may read it through its channel', () => {
    for (const [topic, channel] of Object.entries(TOPIC_CHANNEL)) {
      const access = contract[channel].access
      expect(Array.isArray(access), channel).toBe(true)
      expect([...TOPIC_READERS[topic as keyof typeof TOPIC_READERS]].sort(), topic).toEqual([...access].sort())
    }
    expect(Object.keys(TOPIC_CHANNEL).sort()).toEqual(CHANGE_TOPICS.filter((t) => t !== 'session').sort())
  })

  it('an operator hears of ceremonies and imports but not of claims; a support agent of claims only', () => {
    const all: Change[] = [
      { seq: 1, topic: 'ceremony', id: '2' },
      { seq: 2, topic: 'claims', id: '0001-001-0000001-5' },
      { seq: 3, topic: 'imports', id: null },
      { seq: 4, topic: 'users', id: '7' },
    ]
    expect(changesFor(all, { role: 'operator', userId: 3 }).map((c) => c.topic)).toEqual(['ceremony', 'imports'])
    expect(changesFor(all, { role: 'support', userId: 3 }).map((c) => c.topic)).toEqual(['ceremony', 'claims'])
    expect(changesFor(all, { role: 'regulator', userId: 3 })).toEqual([])
    expect(changesFor(all, { role: 'admin', userId: 3 })).toHaveLength(4)
  })

  it('a change to an account is told as `session` to that account alone, whatever its role', () => {
    const mine: Change = { seq: 9, topic: 'session', id: '7' }
    for (const role of ROLES) {
      expect(changeVisibleTo(mine, { role, userId: 7 })).toBe(true)
      expect(changeVisibleTo(mine, { role, userId: 8 })).toBe(false)
    }
  })

  it('only a change as the contract shapes it passes the check', () => {
    expect(isChange({ seq: 1, topic: 'claims', id: null })).toBe(true)
    expect(isChange({ seq: 1, topic: 'claims', id: 'x' })).toBe(true)
    for (const bad of [null, 'claims', { seq: '1', topic: 'claims', id: null }, { seq: 1, topic: 'secrets', id: null }])
      expect(isChange(bad)).toBe(false)
    expect(isChange({ seq: 1, topic: 'claims', id: 3 })).toBe(false)
  })
})
