import { describe, expect, it } from 'vitest'
import { describeError } from './useErrors'
import { ApiError, TransportError } from '../api'
import { createAppI18n } from '../i18n'

const { t } = createAppI18n('en').global
const tr = (k: string, p?: Record<string, unknown>) => t(k, p ?? {})

describe('describeError', () => {
  it('says what to do for each api error, with the server detail', () => {
    expect(describeError(new ApiError({ code: 'FORBIDDEN', message: 'x' }), tr)).toMatch(/ask an administrator/)
    expect(
      describeError(new ApiError({ code: 'BAD_ARGUMENTS', message: 'must not be empty', field: 'name' }), tr),
    ).toBe('Check the field “name”: must not be empty')
    expect(
      describeError(new ApiError({ code: 'ILLEGAL_STATE', message: 'emission 1 cannot open: it is created.' }), tr),
    ).toBe(
      'Not possible in the current state: emission 1 cannot open: it is created. Refresh and follow the steps in order.',
    )
    expect(describeError(new ApiError({ code: 'NOT_SIGNED_IN', message: 'x' }), tr)).toMatch(/sign in again/)
  })
  it("says the server's reason in the user's language: states, steps, hints and counts in words", () => {
    const { t: fr } = createAppI18n('fr').global
    const trFr = (k: string, p?: Record<string, unknown>, n?: number) =>
      n === undefined ? fr(k, p ?? {}) : fr(k, p ?? {}, n)
    const open = new ApiError({
      code: 'ILLEGAL_STATE',
      message: 'emission 3 cannot open for sale: …',
      reason: {
        key: 'EMISSION_STEP',
        params: { emission: 3, action: 'open', status: 'generated', hint: 'verifyFirst' },
      },
    })
    expect(describeError(open, trFr)).toBe(
      'Impossible dans l’état actuel : l’émission 3 est générée, on ne peut pas l’ouvrir à la vente ; chaque bloc doit être vérifié avant l’ouverture. Actualisez et suivez les étapes dans l’ordre.',
    )
    expect(describeError(open, tr)).toBe(
      'Not possible in the current state: emission 3 is generated, so you cannot open it for sale; every block must be verified before the emission opens. Refresh and follow the steps in order.',
    )
    const blocks = new ApiError({
      code: 'ILLEGAL_STATE',
      message: '…',
      reason: {
        key: 'EMISSION_STEP',
        params: { emission: 2, action: 'verify', status: 'generating', hint: 'blocksNotGenerated', blocks: '2, 3' },
      },
    })
    expect(describeError(blocks, trFr)).toContain(
      'l’émission 2 est en génération, on ne peut pas la vérifier ; blocs 2, 3 jamais générés',
    )
    const tooMany = new ApiError({
      code: 'BAD_ARGUMENTS',
      field: 'sales',
      message: '…',
      reason: { key: 'SIM_TOO_MANY', params: { emission: 1, unsold: 8_016_000, sales: 9_000_000 } },
    })
    expect(describeError(tooMany, trFr, (n) => n.toLocaleString('fr-FR'))).toBe(
      'Vérifiez le champ « sales » : il reste 8\u202f016\u202f000 unités à l’émission 1, moins que les 9\u202f000\u202f000 ventes demandées',
    )
    // a deactivated account is not told that its password is wrong
    expect(
      describeError(
        new ApiError({ code: 'BAD_CREDENTIALS', message: '…', reason: { key: 'ACCOUNT_DEACTIVATED', params: {} } }),
        trFr,
      ),
    ).toBe('Ce compte est désactivé : adressez-vous à un administrateur.')
    // a mistyped serial, explained from the serial itself, as the inspector does while it is typed
    const typo = new ApiError({
      code: 'INVALID_SERIAL',
      message: 'the check digit does not match',
      reason: { key: 'SERIAL', params: { serial: '0001-001-0000005-0' } },
    })
    expect(describeError(typo, trFr)).toBe(
      'Numéro de série « 0001-001-0000005-0 » : La clé de contrôle ne correspond pas : un chiffre a été mal saisi ou deux chiffres ont été inversés. Comparez avec le ticket.',
    )
    // without a reason (an older server, or an error that has none), its English sentence
    expect(describeError(new ApiError({ code: 'NOT_FOUND', message: 'no such thing' }), trFr)).toBe(
      'Introuvable : no such thing. Vérifiez le numéro et réessayez.',
    )
  })

  it('tells an unreachable server from a bug', () => {
    expect(describeError(new TransportError('down'), tr)).toMatch(/cannot be reached/)
    expect(describeError(new Error('boom'), tr)).toMatch(/Unexpected error: boom/)
  })

  it('says a claim’s refusals with its statuses, steps and amounts in words', () => {
    const { t: fr } = createAppI18n('fr').global
    const trFr = (k: string, p?: Record<string, unknown>, n?: number) =>
      n === undefined ? fr(k, p ?? {}) : fr(k, p ?? {}, n)
    const money = (c: number) => `${c / 100} €`
    const step = new ApiError({
      code: 'CONFLICT',
      message: '…',
      reason: { key: 'CLAIM_STEP', params: { serial: '0001-001-0000042-7', status: 'paid', step: 'pay' } },
    })
    expect(describeError(step, trFr, String, money)).toContain(
      'la réclamation sur 0001-001-0000042-7 est à l’état « payée » : le paiement n’y est pas possible',
    )
    // the second-person rule is not a matter of role: said on its own
    const same = new ApiError({
      code: 'FORBIDDEN',
      message: '…',
      reason: { key: 'CLAIM_SAME_PERSON', params: { serial: 'S', name: 'marc', step: 'approve', earlier: 'verify' } },
    })
    expect(describeError(same, tr, String, money)).toBe(
      'Marc took the identity check of the claim on S: the approval is another person’s.',
    )
    const below = new ApiError({
      code: 'NOT_FOUND',
      message: '…',
      reason: { key: 'CLAIM_NONE', params: { serial: 'S', why: 'below', prizeCents: 5_000, thresholdCents: 10_000 } },
    })
    expect(describeError(below, tr, String, money)).toContain(
      'no claim on unit S: its prize of 50 € is below its emission’s claim threshold (100 €)',
    )
  })
})
