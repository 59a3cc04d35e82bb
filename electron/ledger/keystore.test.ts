import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLedger, type Db } from './db'
import { keyFilePath, keyFingerprint, keyStoreFromKey, openLedgerKey } from './keystore'
import { readMeta } from './meta'
import { AppError } from '../contract/errors'
import { openLedgerFixture, TEST_ACTOR } from '../../test/support/simulator-world'
import { smallDefinition } from '../../test/support/game-fixtures'
import { testEngine, testLedgerLocation } from '../../test/support/ledger-engine'

let dir: string
let path: string
/** The ledger's key file: `<db>.key` beside a SQLite file, the test's own for a PostgreSQL database. */
let keyFile: string
/** The key file passed to openLedgerKey: none on SQLite (the default, beside the file), the test's own on PostgreSQL. */
let givenKey: string | undefined
let db: Db
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keys-'))
  const ledger = testLedgerLocation(dir, 'a')
  path = ledger.location
  givenKey = ledger.keyFile
  keyFile = givenKey ?? keyFilePath(path)
  db = openLedger(path)
})
afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A block sealed under the key now in the key file, as generation leaves it. */
function sealBlock(): void {
  const keys = openLedgerKey(db, path, { keyFile: givenKey })
  db.prepare(
    "INSERT INTO emissions (emission, code, blocks, definition, definition_digest, created_at) VALUES (1, 'E1', 1, '{}', 'x', 't')",
  ).run()
  const sealed = keys.sealSecret({ emission: 1, block: 1 }, new Uint8Array(32).fill(7))
  db.prepare("INSERT INTO blocks (emission, block, status, secret, commitment) VALUES (1, 1, 'generated', ?, 'c')").run(
    sealed,
  )
}

function refusal(fn: () => unknown): AppError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(AppError)
    expect((e as AppError).code).toBe('KEY')
    return e as AppError
  }
  throw new Error('expected a KEY error')
}

describe('the ledger key', () => {
  it('makes a 0600 key for a new ledger, records its fingerprint, and seals secrets bound to their block', () => {
    const keys = openLedgerKey(db, path, { keyFile: givenKey })
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(readMeta(db, 'key_fingerprint')).toBe(keys.fingerprint())
    const secret = new Uint8Array(32).fill(7)
    const sealed = keys.sealSecret({ emission: 1, block: 2 }, secret)
    expect(Buffer.from(sealed).includes(Buffer.from(secret))).toBe(false)
    expect(openLedgerKey(db, path, { keyFile: givenKey }).openSecret({ emission: 1, block: 2 }, sealed)).toEqual(secret)
    expect(() => keys.openSecret({ emission: 1, block: 3 }, sealed)).toThrow(
      /does not open under this ledger's key: it was altered, or copied from another block/,
    )
    sealed[sealed.length - 1] ^= 1
    expect(() => keys.openSecret({ emission: 1, block: 2 }, sealed)).toThrow(
      /does not open under this ledger's key: it was altered, or copied from another block/,
    )
  })

  it('is never made again once the ledger has one: a deleted key file is refused and stays deleted', () => {
    const first = openLedgerKey(db, path, { keyFile: givenKey }).fingerprint()
    rmSync(keyFile)
    const keys = openLedgerKey(db, path, { keyFile: givenKey })
    expect(existsSync(keyFile)).toBe(false)
    const e = refusal(() => keys.sealSecret({ emission: 1, block: 1 }, new Uint8Array(32)))
    expect(e.message).toContain(`the ledger key file ${keyFile} is missing`)
    expect(e.message).toContain(first.slice(0, 16))
    expect(e.message).toMatch(/restore that file from the backup.*No new key was made/)
    expect(e.extras.reason).toEqual({ key: 'KEY_MISSING', params: { path: keyFile, fingerprint: first.slice(0, 16) } })
    expect(keys.problem).toBe(e)
  })

  it("refuses a key that is not the ledger's as a wrong key", () => {
    sealBlock()
    writeFileSync(keyFile, randomBytes(32).toString('hex'), { mode: 0o600 })
    const keys = openLedgerKey(db, path, { keyFile: givenKey })
    expect(refusal(() => keys.openSecret({ emission: 1, block: 1 }, Buffer.alloc(60))).message).toMatch(
      /^wrong key: .* is not this ledger's/,
    )
  })

  // an older ledger made by dropping a trigger of the SQLite schema: SQLite only
  it.skipIf(testEngine() === 'postgres')(
    'records the fingerprint of an older ledger only once its key opens its sealed blocks',
    () => {
      sealBlock()
      const right = readFileSync(keyFile, 'utf8')
      db.close()
      db = openLedger(path)
      // as a ledger of the previous version: sealed blocks, no fingerprint recorded
      db.exec("DROP TRIGGER ledger_meta_no_delete; DELETE FROM ledger_meta WHERE name = 'key_fingerprint'")
      writeFileSync(keyFile, randomBytes(32).toString('hex'), { mode: 0o600 })
      expect(openLedgerKey(db, path, { keyFile: givenKey }).problem?.message).toMatch(
        /does not open this ledger's block secrets/,
      )
      expect(readMeta(db, 'key_fingerprint')).toBeNull()
      writeFileSync(keyFile, right)
      expect(openLedgerKey(db, path, { keyFile: givenKey }).problem).toBeNull()
      expect(readMeta(db, 'key_fingerprint')).toBe(keyFingerprint(Buffer.from(right.trim(), 'hex')))
    },
  )

  // an older ledger made by dropping a trigger of the SQLite schema: SQLite only
  it.skipIf(testEngine() === 'postgres')(
    'refuses an older ledger with sealed blocks and no key file, making no key',
    () => {
      sealBlock()
      db.exec("DROP TRIGGER ledger_meta_no_delete; DELETE FROM ledger_meta WHERE name = 'key_fingerprint'")
      rmSync(keyFile)
      expect(openLedgerKey(db, path, { keyFile: givenKey }).problem?.message).toMatch(/is missing/)
      expect(existsSync(keyFile)).toBe(false)
    },
  )

  it('refuses a key file that others can read, with the chmod to run', () => {
    openLedgerKey(db, path, { keyFile: givenKey })
    chmodSync(keyFile, 0o644)
    expect(openLedgerKey(db, path, { keyFile: givenKey }).problem?.message).toBe(
      `the ledger key file ${keyFile} can be read by other users (mode 644): run chmod 600 ${keyFile}`,
    )
  })

  it('refuses a damaged key file', () => {
    writeFileSync(keyFile, 'not a key', { mode: 0o600 })
    expect(openLedgerKey(db, path, { keyFile: givenKey }).problem?.message).toMatch(/damaged/)
  })

  it('takes the key from another file when told to', () => {
    const elsewhere = join(dir, 'team.key')
    const key = randomBytes(32)
    writeFileSync(elsewhere, key.toString('hex'), { mode: 0o600 })
    expect(openLedgerKey(db, path, { keyFile: elsewhere }).fingerprint()).toBe(keyStoreFromKey(key).fingerprint())
    expect(existsSync(keyFile)).toBe(false)
  })
})

describe('an emission whose sealed secret was altered, under the right key', () => {
  it('fails verification and its block is marked failed, with why', async () => {
    const f = openLedgerFixture({ definition: smallDefinition() })
    try {
      const e = await f.openEmission()
      const sealed = f.db.prepare('SELECT secret FROM blocks WHERE emission = ?').pluck().get(e) as Buffer
      sealed[sealed.length - 1] ^= 1
      f.db.prepare('UPDATE blocks SET secret = ? WHERE emission = ?').run(sealed, e)
      const end = await f.jobs.wait(f.emissions.verify(TEST_ACTOR, e).id)
      expect(end.state).toBe('failed')
      expect(f.catalog.blocks(e).map((b) => b.status)).toEqual(['failed'])
      expect(end.message).toMatch(/does not open under this ledger's key/)
    } finally {
      f.close()
    }
  })
})

describe('an emission under the wrong key', () => {
  it('is not re-verified, and its blocks are not marked failed', async () => {
    const f = openLedgerFixture({ definition: smallDefinition() })
    const e = await f.openEmission()
    f.db.close()
    writeFileSync(f.keyFile ?? keyFilePath(f.path), randomBytes(32).toString('hex'), { mode: 0o600 })
    const g = openLedgerFixture({ definition: smallDefinition(), path: f.path, keyFile: f.keyFile })
    try {
      expect(() => g.emissions.verify(TEST_ACTOR, e)).toThrow(/^wrong key/)
      expect(g.catalog.blocks(e).map((b) => b.status)).toEqual(['verified'])
    } finally {
      g.close()
      rmSync(f.dir, { recursive: true, force: true })
    }
  })
})
