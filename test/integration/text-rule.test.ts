/**
 * Any text, one sound chain (issue 29, item 1): text that no storage keeps as it was typed (an
 * unpaired UTF-16 surrogate, NUL) or that shows as another text (control, zero-width and
 * bidirectional formatting characters) is refused with the field and the character named, at the
 * contract and in the sales feed; names and free text are stored in Unicode's composed form (NFC);
 * and the audit log writes no entry its seal would not match. Both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rmSync } from 'node:fs'
import type { Backend } from '../../electron/app/backend'
import { feedLine } from '../../electron/services/import'
import { checkLedger } from '../../electron/services/ledger-office'
import { formatSerial } from '../../game-core/serial'
import { openEmissionBackend, PASSWORD, samplePlay, templatePath, tempDir, USERS } from './ledger-fixture'

type Reply =
  | { ok: true; result: unknown }
  | {
      ok: false
      error: {
        code: string
        message: string
        field?: string
        details?: unknown
        reason?: { key: string; params: unknown }
      }
    }

let dir: string
let b: Backend
const call = (channel: string, args: unknown, token: string | null = null) =>
  b.dispatch(channel, args, token) as Promise<Reply>
async function signIn(name: string): Promise<string> {
  const r = await call('auth:login', { name, password: PASSWORD })
  if (!r.ok) throw new Error(`${name} could not sign in: ${r.error.message}`)
  return (r.result as { token: string }).token
}
const party = (player: string, linkedTo = 'Bob', reason = 'his sister') => ({
  player,
  relation: 'family',
  linkedTo,
  reason,
})

beforeAll(async () => {
  await templatePath()
  dir = tempDir('text-rule')
  b = await openEmissionBackend(dir)
}, 180_000)
afterAll(async () => {
  await b.closeGracefully()
  rmSync(dir, { recursive: true, force: true })
})

describe('text at the contract', () => {
  it('refuses a register entry whose player id holds an unpaired surrogate, naming the field and the character', async () => {
    const auditor = await signIn(USERS.auditor)
    for (const player of ['PL\ud800', 'PL\udc00x', '\ud83dPL']) {
      const r = await call('parties:add', party(player), auditor)
      expect(r, JSON.stringify(player)).toMatchObject({
        ok: false,
        error: {
          code: 'BAD_ARGUMENTS',
          field: 'player',
          message: expect.stringMatching(/player: .*U\+D[89A-F][0-9A-F]{2}/),
        },
      })
    }
    // a whole pair is a character like any other
    expect((await call('parties:add', party('PL\ud83d\ude00'), auditor)).ok).toBe(true)
  })

  it('refuses NUL, zero-width and bidirectional characters in names and free text, naming the field', async () => {
    const admin = await signIn(USERS.admin)
    const auditor = await signIn(USERS.auditor)
    const cases: [string, unknown, string, string][] = [
      ['users:create', { name: 'bob\u200b', role: 'support', password: PASSWORD }, 'name', 'U+200B'],
      ['users:create', { name: 'b\u0000ob', role: 'support', password: PASSWORD }, 'name', 'U+0000'],
      ['users:create', { name: 'b\ufeffob', role: 'support', password: PASSWORD }, 'name', 'U+FEFF'],
      ['parties:add', party('P-2', 'Bob\u2060'), 'linkedTo', 'U+2060'],
      ['parties:add', party('P-2', 'Bob', 'his \u202esister'), 'reason', 'U+202E'],
      ['parties:add', party('P-2', 'Bob', 'his\u0000 sister'), 'reason', 'U+0000'],
      ['parties:add', party('P\u200d2'), 'player', 'U+200D'],
      ['emissions:withdraw', { emission: 1, reason: 'a\ud800bc' }, 'reason', 'U+D800'],
      ['audit:list', { actor: 'a\u0000' }, 'actor', 'U+0000'],
    ]
    for (const [channel, args, field, char] of cases) {
      const r = await call(channel, args, channel === 'parties:add' ? auditor : admin)
      expect(r, `${channel} ${JSON.stringify(args)}`).toMatchObject({
        ok: false,
        error: {
          code: 'BAD_ARGUMENTS',
          field,
          message: expect.stringContaining(`${field}: `),
          reason: { key: 'TEXT_REFUSED', params: expect.objectContaining({ field, char }) },
        },
      })
      expect((r as { error: { message: string } }).error.message).toContain(char)
    }
    expect(b.services.users.list().map((u) => u.name)).not.toContain('bob')
  })

  it('stores names and free text in their composed form (NFC)', async () => {
    const auditor = await signIn(USERS.auditor)
    const r = await call('parties:add', party('P-NFC', 'He\u0301le\u0300ne', 'cousine de He\u0301le\u0300ne'), auditor)
    expect(r).toMatchObject({ ok: true, result: { linkedTo: 'Hélène', reason: 'cousine de Hélène' } })
    expect(b.services.parties.list(false).find((p) => p.player === 'P-NFC')?.linkedTo).toBe('H\u00e9l\u00e8ne')
    const admin = await signIn(USERS.admin)
    expect(await call('users:create', { name: 'Zoe\u0301', role: 'support', password: PASSWORD }, admin)).toMatchObject(
      { ok: true, result: { name: 'Zo\u00e9' } },
    )
  })
})

describe('text in the sales feed', () => {
  const line = (unit: number, player: string, saleId = `TXT-${unit}`) =>
    feedLine({
      saleId,
      serial: formatSerial({ emission: 1, block: 1, unit }),
      player,
      soldAt: Date.now() - 3_600_000 + unit,
      stakeCents: 500,
      play: samplePlay(unit),
    })

  it('refuses lines whose player or sale id holds an unpaired surrogate, NUL or a zero-width character, and writes nothing', async () => {
    const operator = await signIn(USERS.operator)
    const sold = b.services.catalog.block(1, 1).units_sold
    const entries = b.services.audit.verify().entries
    // the block's next units, in order: each line is refused for its text alone
    const texts: [string, string?][] = [
      ['fine'],
      ['P\ud800'],
      ['P\u0000'],
      ['P\u200b'],
      ['ok', 'S\udfff'],
      ['Zoe\u0301'],
    ]
    const lines = texts.map(([player, saleId], i) => line(sold + i, player, saleId))
    const r = await call('sales:import', { content: lines.join('\n'), fileName: 'text.jsonl' }, operator)
    expect(r).toMatchObject({
      ok: false,
      error: {
        code: 'IMPORT_REJECTED',
        details: [
          { line: 2, reason: expect.stringMatching(/player: .*U\+D800 at character 2/) },
          { line: 3, reason: expect.stringMatching(/player: .*U\+0000 at character 2/) },
          { line: 4, reason: expect.stringMatching(/player: .*U\+200B at character 2/) },
          { line: 5, reason: expect.stringMatching(/saleId: .*U\+DFFF at character 2/) },
          { line: 6, reason: expect.stringMatching(/player: .*composed form \(NFC\)/) },
        ],
      },
    })
    expect((r as { error: { details: unknown[] } }).error.details).toHaveLength(5)
    expect(b.services.catalog.block(1, 1).units_sold).toBe(sold)
    expect(b.services.audit.list({ page: 1, pageSize: 1 }).items[0]).toMatchObject({ action: 'sales.import-rejected' })
    expect(b.services.audit.verify().entries).toBe(entries + 1)
  })
})

describe('the audit log', () => {
  it('writes no entry whose actor, object or details would not be stored as they were sealed', () => {
    const audit = b.services.audit
    const before = audit.verify().entries
    for (const [actor, object] of [
      ['ada', 'player:PL\ud800'],
      ['ada\udc00', 'ledger'],
      ['ada', 'player:P\u0000'],
      ['a\u0000', 'ledger'],
    ]) {
      expect(
        () => audit.record(actor, 'party.add', object, {}),
        `${JSON.stringify(actor)} ${JSON.stringify(object)}`,
      ).toThrow(
        expect.objectContaining({
          code: 'BAD_ARGUMENTS',
          message: expect.stringMatching(/audit entry's (actor|object) .*U\+(D800|DC00|0000)/),
          extras: expect.objectContaining({ reason: expect.objectContaining({ key: 'AUDIT_TEXT_REFUSED' }) }),
        }),
      )
    }
    // details are JSON, whose escapes keep any string as it was
    audit.record('ada', 'party.add', 'player:P-3', { reason: 'x\ud800\u0000' })
    expect(audit.verify().entries).toBe(before + 1)
  })

  it('after all of the above, the audit log verifies and the ledger checks sound', async () => {
    const v = b.services.audit.verify()
    expect(v).toMatchObject({ ok: true, firstBad: null, bad: [], badCount: 0 })
    const r = await checkLedger(b.services, { prizes: false })
    expect(r.audit.ok).toBe(true)
    expect(r.records.findings).toEqual([])
    expect(r.ok).toBe(true)
  })
})
