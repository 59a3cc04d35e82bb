/**
 * The outsiders' verifier re-derives a whole block on every core (issue 35, item 2): the same
 * commitment as the app's game-core on one thread or several, a progress line on standard error,
 * and a wrong secret or commitment refused with exit 1.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { canonicalJson } from '../../game-core/commitment'
import { toHex } from '../../game-core/primitives'
import { verifyBlock } from '../../game-core/verify'
import { nodePrimitives } from '../../electron/crypto/node-primitives'
import { readDefinition, verifyBlockThreaded, verifyBlock as verifyOutside } from '../../tools/carats-verify.mjs'
import { fixedSecret, smallDefinition } from '../support/game-fixtures'

const TOOL = resolve(__dirname, '../../tools/carats-verify.mjs')
const def = smallDefinition()
const secret = fixedSecret('outside-verifier')
const ref = { emission: 4, block: 2, secret }
const dir = mkdtempSync(join(tmpdir(), 'carats-outside-'))
const definitionFile = join(dir, 'definition.json')
writeFileSync(definitionFile, canonicalJson(def))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const tool = (...args: string[]) =>
  spawnSync(
    process.execPath,
    [TOOL, 'block', '--definition', definitionFile, '--emission', '4', '--block', '2', ...args],
    { encoding: 'utf8', timeout: 60_000 },
  )

describe('carats-verify.mjs block', () => {
  const app = verifyBlock(def, nodePrimitives, ref, { commitmentVersion: 2 })

  it('finds the commitment of the app, on one thread and on three, its parts in order', async () => {
    const { def: d, digest } = readDefinition(canonicalJson(def))
    const one = verifyOutside(d, digest, secret, 4, 2, 2)
    const seen: number[] = []
    const three = await verifyBlockThreaded(d, digest, secret, 4, 2, 2, {
      threads: 3,
      onProgress: (done: number, total: number) => seen.push(done / total),
    })
    expect(one.commitment).toBe(app.commitment)
    expect(three.commitment).toBe(app.commitment)
    expect(three.merkleRoot).toBe(one.merkleRoot)
    expect(three.sound).toBe(true)
    expect(Math.max(...seen)).toBe(1)
  })

  it('says the block holds, with a progress line, and exits 0', () => {
    const r = tool('--secret', toHex(secret), '--commitment', app.commitment, '--threads', '2')
    expect(r.stdout).toMatch(/10000 units in [\d.]+ s; every unit sound, the prize table exact/)
    expect(r.stdout).toContain(`${app.commitment} (matches)`)
    expect(r.stderr).toMatch(/^block 4\/2: 0 %$/m)
    expect(r.stderr).toMatch(/^block 4\/2: 100 %$/m)
    expect(r.status).toBe(0)
  })

  it('refuses another secret or another commitment, exit 1', () => {
    const other = tool('--secret', toHex(fixedSecret('another')), '--commitment', app.commitment)
    expect(other.stdout).toContain(`DOES NOT MATCH ${app.commitment}`)
    expect(other.status).toBe(1)
    const v1 = tool('--secret', toHex(secret), '--commitment', app.commitment, '--commitment-version', '1')
    expect(v1.status).toBe(1)
  })

  it('refuses a number of threads that is not a whole number from 1, before deriving anything', () => {
    for (const bad of ['abc', '0', '-2']) {
      const r = tool('--secret', toHex(secret), '--commitment', app.commitment, '--threads', bad)
      expect(r.stderr).toContain(`--threads takes a whole number from 1, not "${bad}"`)
      expect(r.stdout).not.toMatch(/UNSOUND|units in/)
      expect(r.status).not.toBe(0)
    }
  })
})
