import { describe, expect, it } from 'vitest'
import type { EmissionSummary, KeyCeremony, UserInfo } from '../../../../electron/contract'
import type { Role } from '../../../../electron/contract/define'
import { canUse } from '../../access'
import { createAppI18n } from '../../i18n'
import {
  custodianStance,
  diceProblemMessage,
  diceShare,
  diceState,
  drawShare,
  forgetShare,
  keepShare,
  keptShare,
  mayGenerate,
  shareDigest,
  toHex,
} from './ceremony'

const ceremony = (more: Partial<KeyCeremony> = {}): KeyCeremony => ({
  emission: 3,
  protocol: 2,
  state: 'awaiting-commitment',
  serverHash: null,
  startedBy: 'oscar',
  startedAt: '2026-12-01T10:00:00.000Z',
  committedBy: null,
  custodianCommit: null,
  committedAt: null,
  custodian: null,
  custodianHash: null,
  custodianSource: null,
  contributedAt: null,
  abandoned: [],
  ...more,
})
const user = (name: string, role: Role): UserInfo => ({ name, role }) as UserInfo
const stance = (c: KeyCeremony | null, name: string, role: Role) =>
  custodianStance(c, user(name, role), (ch) => canUse(ch, role))
const emission = (demo: boolean) => ({ emission: 3, demo, status: 'created' }) as EmissionSummary

describe('who commits to the second share and reveals it', () => {
  it('is another person than the opener, of a role the contract lets commit', () => {
    expect(stance(ceremony(), 'aline', 'auditor')).toBe('may-commit')
    expect(stance(ceremony(), 'marc', 'manager')).toBe('may-commit')
    expect(stance(ceremony(), 'otto', 'operator')).toBe('may-commit')
    // the opener, whatever the case of the name
    expect(stance(ceremony(), 'Oscar', 'operator')).toBe('is-starter')
    expect(stance(ceremony(), 'sophie', 'support')).toBe('not-a-custodian')
  })

  it('is, once committed, the one who committed, for the reveal; the others wait', () => {
    const committed = ceremony({
      state: 'awaiting-reveal',
      committedBy: 'aline',
      custodianCommit: 'cd'.repeat(32),
      serverHash: 'ab'.repeat(32),
    })
    expect(stance(committed, 'Aline', 'auditor')).toBe('must-reveal')
    expect(stance(committed, 'marc', 'manager')).toBe('awaiting-reveal')
    expect(stance(committed, 'oscar', 'operator')).toBe('awaiting-reveal')
  })

  it('is nobody once the ceremony is complete, or before it is opened; one begun the old way waits to be abandoned', () => {
    expect(stance(ceremony({ state: 'complete', custodian: 'aline' }), 'marc', 'manager')).toBe('closed')
    expect(stance(null, 'aline', 'auditor')).toBe('closed')
    expect(custodianStance(ceremony(), null, () => true)).toBe('closed')
    expect(
      stance(ceremony({ protocol: 1, state: 'awaiting-custodian', serverHash: 'ab'.repeat(32) }), 'aline', 'auditor'),
    ).toBe('old-protocol')
  })
})

describe('the share kept in the tab between commitment and reveal', () => {
  it('is found again for its own commitment only, and forgotten', () => {
    const store = new Map<string, string>()
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
    } as Storage
    keepShare(storage, 3, 'Aline', { commitment: 'cd'.repeat(32), dice: '1 2 3' })
    expect(keptShare(storage, 3, 'aline', 'cd'.repeat(32))).toEqual({ commitment: 'cd'.repeat(32), dice: '1 2 3' })
    expect(keptShare(storage, 3, 'aline', 'ef'.repeat(32))).toBeNull()
    expect(keptShare(storage, 4, 'aline', 'cd'.repeat(32))).toBeNull()
    expect(keptShare(storage, 3, 'marc', 'cd'.repeat(32))).toBeNull()
    forgetShare(storage, 3, 'ALINE')
    expect(keptShare(storage, 3, 'aline', 'cd'.repeat(32))).toBeNull()
  })
})

describe('generation', () => {
  it('of a real emission waits for a complete ceremony; a demonstration one may go directly', () => {
    expect(mayGenerate(emission(false), null)).toBe(false)
    expect(mayGenerate(emission(false), ceremony())).toBe(false)
    expect(mayGenerate(emission(false), ceremony({ state: 'complete' }))).toBe(true)
    expect(mayGenerate(emission(true), null)).toBe(true)
  })
})

describe('typed dice rolls', () => {
  it('are counted as they are typed, separators ignored', () => {
    expect(diceState('')).toEqual({ count: 0, problem: { problem: 'too-few', count: 0 } })
    expect(diceState('1 2, 3;\n4')).toEqual({ count: 4, problem: { problem: 'too-few', count: 4 } })
    expect(diceState('6'.repeat(100))).toEqual({ count: 100, problem: null })
  })

  it('name the first character that is not a roll, and still count the rolls', () => {
    expect(diceState('1 2 7 3')).toEqual({ count: 3, problem: { problem: 'not-a-roll', char: '7' } })
    expect(diceState('12x')).toMatchObject({ problem: { problem: 'not-a-roll', char: 'x' } })
  })

  it('say what is wrong in the user’s language', () => {
    const { t } = createAppI18n('fr').global
    const m = diceProblemMessage({ problem: 'too-few', count: 37 })
    expect(t(m.key, m.params)).toBe('37 lancers tapés : il en faut au moins 100 pour une part de 32 octets')
    const bad = diceProblemMessage({ problem: 'not-a-roll', char: '0' })
    expect(t(bad.key, bad.params)).toBe('« 0 » n’est pas un lancer de dé : tapez seulement des chiffres de 1 à 6')
  })

  it('give here the share the backend makes from them (game-core shareFromDice: SHA256("CARATS/v1/dice" || digits))', async () => {
    // known answer, from game-core/seeding.ts shareFromDice with the Node primitives
    expect(toHex(await diceShare('123456'.repeat(17)))).toBe(
      'acef59226bed408ec0c2649116665b9dfd7996cee2af7e7bc80502121f70bdff',
    )
  })
})

describe('a share drawn in the window', () => {
  it('is 32 random bytes, and its hash is its SHA-256', async () => {
    const a = drawShare()
    const b = drawShare()
    expect(a).toHaveLength(32)
    expect(toHex(a)).not.toBe(toHex(b))
    // known answer: SHA-256 of 32 zero bytes
    expect(await shareDigest(new Uint8Array(32))).toBe(
      '66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925',
    )
  })
})
