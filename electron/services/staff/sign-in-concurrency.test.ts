/**
 * Sign-ins sent at once to one account (issue 29, item 6): the right password sent by many tabs or
 * scripts at once all sign in; wrong guesses sent at once are still checked no more than the
 * failures left before the lockout, and a burst beyond what waits is refused as busy, not counted.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AppError } from '../../contract/errors'
import { openBackend, type Backend } from '../../app/backend'
import { testLedgerLocation } from '../../../test/support/ledger-engine'

const PASSWORD = 'correct horse battery'
let dir: string
let b: Backend

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sign-in-at-once-'))
  const ledger = testLedgerLocation(dir)
  b = openBackend({ dbPath: ledger.location, keyFile: ledger.keyFile, threads: 1 })
  b.services.users.setup('ada', PASSWORD)
})
afterEach(async () => {
  await b.closeGracefully()
  rmSync(dir, { recursive: true, force: true })
})

/** The session's user name, or the refusal's reason key. */
async function signIn(name: string, password: string): Promise<string> {
  try {
    return (await b.services.users.login(name, password)).user.name
  } catch (e) {
    if (!(e instanceof AppError)) throw e
    return e.extras.reason?.key ?? e.code
  }
}

const count = (results: string[]) =>
  results.reduce<Record<string, number>>((m, r) => ({ ...m, [r]: (m[r] ?? 0) + 1 }), {})

describe('sign-ins sent at once to one account', () => {
  it('the right password sent 12 times at once signs in 12 times, and leaves no failure behind', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => signIn('ada', PASSWORD)))
    expect(count(results)).toEqual({ ada: 12 })
    expect(b.services.users.throttle.row('ada')).toBeUndefined()
    expect(b.services.users.list()[0].lockedUntil ?? null).toBeNull()
  }, 30_000)

  it('right and wrong passwords mixed at once: every right one signs in, the wrong ones are refused as wrong, nothing locks', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => signIn('ada', i % 3 === 0 ? 'a wrong guess' : PASSWORD)),
    )
    expect(count(results)).toEqual({ ada: 8, WRONG_CREDENTIALS: 4 })
  }, 30_000)

  it('wrong guesses sent at once: no more than 5 are checked, the rest refused as locked or busy, never counted beyond the lockout', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => signIn('ada', `guess ${i}`)))
    const c = count(results)
    expect(c.WRONG_CREDENTIALS).toBe(5)
    expect((c.SIGN_IN_LOCKED ?? 0) + (c.SIGN_IN_BUSY ?? 0)).toBe(35)
    expect(b.services.users.throttle.row('ada')).toMatchObject({ failures: 5, lockouts: 1 })
    expect(await signIn('ada', PASSWORD)).toBe('SIGN_IN_LOCKED')
  }, 30_000)
})
