/**
 * One action, one request: every form of the app, sent by Enter and by a click, sends its api
 * request exactly once (counted as the browser sends them, POST /api/<channel>), and a second
 * press while the first request is pending sends nothing. Enter is pressed as a person presses
 * it: the key comes back up only after a quick server has answered (the old sign-in sent a
 * second attempt on the key's release). Also the taken-name message and the typed start date.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Locator, Page, Request, Response, Route } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { CARATS } from '../../game-core/carats'
import { formatSerial } from '../../game-core/serial'
import { feedLine } from '../../electron/services/import'
import { screenshot } from './support'
import { norm, pageToken, signIn, useJourneyApp, type JourneyApp } from './fixtures/app'
import { PASSWORD, SALES_LEDGER, STAFF } from './fixtures/ledger'

const isChannel = (url: string, channel: string) => new URL(url).pathname === `/api/${channel}`

/** How many requests the page sent to `channel` while `act` ran, and in the half second after. */
async function requestsDuring(page: Page, channel: string, act: () => Promise<void>): Promise<number> {
  let n = 0
  const count = (r: Request) => void (isChannel(r.url(), channel) && n++)
  page.on('request', count)
  try {
    await act()
    await page.waitForTimeout(600)
  } finally {
    page.off('request', count)
  }
  return n
}

/** Enter (or Ctrl+Enter) held until the server answered, or for 1.5 s if nothing was asked. */
async function pressEnter(page: Page, channel: string, withCtrl = false): Promise<void> {
  const answered = page.waitForResponse((r) => isChannel(r.url(), channel), { timeout: 1_500 }).catch(() => null)
  if (withCtrl) await page.keyboard.down('Control')
  await page.keyboard.down('Enter')
  await answered
  await page.waitForTimeout(50)
  await page.keyboard.up('Enter')
  if (withCtrl) await page.keyboard.up('Control')
}

/**
 * Two presses, the second while the first one's request is held pending; then the request goes
 * on (or is dropped, when it must not reach the server). The number of requests sent.
 */
async function pressedTwiceWhilePending(
  page: Page,
  channel: string,
  first: () => Promise<void>,
  second: (sofar: string) => Promise<void>,
  end: 'continue' | 'abort' = 'continue',
): Promise<number> {
  let release = () => {}
  const held = new Promise<void>((r) => (release = r))
  const hold = async (route: Route) => {
    await held
    await (end === 'abort' ? route.abort() : route.continue())
  }
  const matches = (url: URL) => url.pathname === `/api/${channel}`
  let answers = 0
  const answered = (r: Response) => void (isChannel(r.url(), channel) && answers++)
  page.on('response', answered)
  await page.route(matches, hold)
  try {
    return await requestsDuring(page, channel, async () => {
      const sent = page.waitForRequest((r) => isChannel(r.url(), channel), { timeout: 10_000 }).catch(() => null)
      await first()
      const firstSent = (await sent) !== null
      await second(
        `first press ${firstSent ? 'sent its request' : 'sent NO request'}, ${answers} answer(s) arrived while held`,
      )
      await page.waitForTimeout(400)
      release()
    })
  } finally {
    page.off('response', answered)
    release()
    await page.unroute(matches, hold)
  }
}

type FocusLog = { focusLog?: string[] }

/** Keeps the page's last focus moves, submits, keys and clicks (element, and when), for a failure's message. */
async function logFocus(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = globalThis as unknown as FocusLog & {
      document: { addEventListener(t: string, f: (e: { target: unknown; key?: string }) => void, c: boolean): void }
    }
    if (w.focusLog) return
    const log: string[] = (w.focusLog = [])
    // focus moves, and what can send a form (a submit, Enter, a click): which came first when a
    // form closes by itself
    const note = (what: string) => (e: { target: unknown; key?: string }) => {
      const el = e.target as { tagName?: string; getAttribute?(n: string): string | null; className?: string }
      const key = e.key ? ` ${e.key}` : ''
      log.push(
        `${performance.now().toFixed(0)} ${what}${key} ${el.tagName?.toLowerCase()}[${el.getAttribute?.('data-test') ?? el.className ?? ''}]`,
      )
      if (log.length > 12) log.shift()
    }
    for (const type of ['focusin', 'submit', 'keydown', 'click']) w.document.addEventListener(type, note(type), true)
  })
}

/** What the page shows when a form was expected and is not there: for the failure's message. */
async function whereAmI(page: Page, sofar: string): Promise<string> {
  const moves = await page.evaluate(
    () => `now ${performance.now().toFixed(0)}: ${((globalThis as unknown as FocusLog).focusLog ?? []).join(' → ')}`,
  )
  const dialogs = await page.getByRole('dialog').count()
  const focused = await page
    .locator('*:focus')
    .evaluateAll(
      (els) =>
        els
          .map(
            (el) =>
              `${el.tagName.toLowerCase()}${el.getAttribute('data-test') ? `[data-test=${el.getAttribute('data-test')}]` : ''} “${(el.textContent ?? '').trim().slice(0, 40)}”`,
          )
          .join(', ') || 'nothing',
    )
  return `${sofar}; ${dialogs} dialog(s) open; focus on ${focused}; at ${page.url()}; focus moves ${moves}`
}

/** The three checks of one form: Enter, a click, and a second press while pending. */
interface FormCase {
  channel: string
  /** Opens the form and fills it so that it can be sent; returns where Enter is pressed, and the submit button. */
  open(): Promise<{ field: Locator; submit: Locator; ctrl?: boolean }>
  /** After a send: waits for the form's outcome (closed, refused) so that the next case starts clean. */
  after(): Promise<void>
  /** The pending request must not reach the server (a refusal that would lock an account, say). */
  dropPending?: boolean
}

/** Waits for the page's transitions to end (a modal still fading in or out), as a person would. */
const settled = (page: Page) =>
  page.evaluate(() =>
    Promise.all(
      (globalThis as unknown as { document: { getAnimations(): { finished: Promise<unknown> }[] } }).document
        .getAnimations()
        .map((a) => a.finished.catch(() => null)),
    ),
  )

async function checkForm(page: Page, name: string, c: FormCase): Promise<void> {
  await logFocus(page)
  let f = await c.open()
  await settled(page)
  await f.field.focus()
  expect(await requestsDuring(page, c.channel, () => pressEnter(page, c.channel, f.ctrl)), `${name}: Enter`).toBe(1)
  await c.after()

  f = await c.open()
  await settled(page)
  expect(await requestsDuring(page, c.channel, () => f.submit.click()), `${name}: click`).toBe(1)
  await c.after()

  f = await c.open()
  await settled(page)
  await f.field.focus()
  const twice = await pressedTwiceWhilePending(
    page,
    c.channel,
    () => pressEnter(page, c.channel, f.ctrl),
    async (sofar) => {
      let where = ''
      if ((await f.submit.count()) === 0) {
        await screenshot(page, `forms-${name.replace(/\W+/g, '-')}-gone-while-pending`)
        where = await whereAmI(page, sofar)
      }
      expect(await f.submit.count(), `${name}: the form stays while its request is pending (${where})`).toBe(1)
      await f.submit.click({ force: true })
    },
    c.dropPending ? 'abort' : 'continue',
  )
  expect(twice, `${name}: Enter, then a click while pending`).toBe(1)
  await c.after()
}

const dialog = (page: Page) => page.getByRole('dialog')
const closed = (page: Page) => () => dialog(page).waitFor({ state: 'hidden', timeout: 15_000 })

describe('one action, one request: the first-start set-up', () => {
  const app = useJourneyApp(null)

  it('sends the set-up once for Enter, once for a click, and not again while pending', async () => {
    const { page } = await app.open()
    await page
      .getByRole('heading', { name: 'Premier démarrage : compte administrateur' })
      .first()
      .waitFor({ timeout: 15_000 })
    const again = page.getByLabel(/^Mot de passe \(confirmation\)/)
    const submit = page.getByRole('button', { name: 'Créer le compte administrateur' })
    await page.getByLabel(/^Mot de passe\W*$/).fill(PASSWORD)
    await again.fill(PASSWORD)
    // dropped on the way: the ledger keeps needing its administrator, the form stays
    const dropped = async (press: () => Promise<void>) => {
      const n = await pressedTwiceWhilePending(page, 'auth:setup', press, press, 'abort')
      await page.getByRole('alert').waitFor()
      return n
    }
    expect(await dropped(() => again.press('Enter')), 'Enter twice').toBe(1)
    expect(await dropped(() => submit.click({ force: true })), 'two clicks').toBe(1)
    await again.focus()
    expect(await requestsDuring(page, 'auth:setup', () => pressEnter(page, 'auth:setup'))).toBe(1)
    await page.getByRole('heading', { name: 'Émissions', level: 1 }).waitFor({ timeout: 15_000 })
  }, 120_000)
})

describe('one action, one request: every form', () => {
  const app = useJourneyApp(SALES_LEDGER)
  const feeds = mkdtempSync(join(tmpdir(), 'carats-e2e-forms-'))
  afterAll(() => rmSync(feeds, { recursive: true, force: true }))
  let admin: Page

  it('sign-in: a refused attempt once per Enter and per click, then signed in by one', async () => {
    const { page } = await app.open()
    admin = page
    await page.getByRole('heading', { name: 'Connexion' }).first().waitFor({ timeout: 15_000 })
    const name = page.getByLabel(/^Identifiant/)
    const password = page.getByLabel(/^Mot de passe\W*$/)
    const submit = page.getByRole('button', { name: 'Se connecter' })
    const refused = page.getByRole('alert')
    await checkForm(page, 'sign-in', {
      channel: 'auth:login',
      // a name of no account: its failures lock nobody out
      open: async () => {
        await name.fill('nobody-here')
        await password.fill('not the password')
        return { field: password, submit }
      },
      after: () => refused.waitFor(),
      dropPending: true,
    })
    await name.fill(STAFF.admin)
    await password.fill(PASSWORD)
    expect(
      await pressedTwiceWhilePending(
        page,
        'auth:login',
        () => password.press('Enter'),
        () => submit.click({ force: true }),
      ),
    ).toBe(1)
    await expect
      .poll(
        () =>
          page
            .locator('.n-layout-header')
            .innerText()
            .catch(() => ''),
        { timeout: 15_000 },
      )
      .toContain(STAFF.admin)
  }, 120_000)

  it('change of one’s own password', async () => {
    const page = admin
    const menu = page.locator('.n-layout-header .user')
    await checkForm(page, 'change password', {
      channel: 'auth:changePassword',
      open: async () => {
        if (!(await dialog(page).isVisible())) {
          await menu.click()
          await page.getByText('Changer mon mot de passe').click()
        }
        // a wrong current password: refused in the form, which stays open
        await page.locator('[data-test="password-current"] input').fill('not my password')
        await page.locator('[data-test="password-new"] input').fill('a new password 1')
        const again = page.locator('[data-test="password-again"] input')
        await again.fill('a new password 1')
        return { field: again, submit: page.locator('[data-test="password-submit"]') }
      },
      after: async () => {
        await page.locator('[data-test="password-error"]').waitFor({ timeout: 15_000 })
      },
      dropPending: true,
    })
    await dialog(page).getByRole('button', { name: 'Annuler' }).click()
    await closed(page)()
  }, 120_000)

  it('user creation and a new password', async () => {
    const page = admin
    await page.getByRole('menuitem', { name: 'Utilisateurs' }).click()
    await page.getByRole('heading', { name: 'Utilisateurs', level: 1 }).waitFor()
    let n = 0
    await checkForm(page, 'create user', {
      channel: 'users:create',
      open: async () => {
        await page.locator('[data-test="new-user"]').click()
        await page.locator('[data-test="user-name"] input').fill(`form-user-${++n}`)
        const password = page.locator('[data-test="user-password"] input')
        await password.fill('a good password')
        return { field: password, submit: page.locator('[data-test="user-submit"]') }
      },
      after: closed(page),
    })
    const row = page.getByRole('row').filter({ hasText: 'form-user-1' })
    await checkForm(page, 'new password', {
      channel: 'users:update',
      open: async () => {
        await row.getByRole('button', { name: 'Nouveau mot de passe' }).click()
        const password = page.locator('[data-test="user-password"] input')
        await password.fill('another good password')
        return { field: password, submit: page.locator('[data-test="user-submit"]') }
      },
      after: closed(page),
    })
  }, 120_000)

  it('says a taken name clearly, beside the name, in the interface’s language', async () => {
    const page = admin
    await page.locator('[data-test="new-user"]').click()
    const nameItem = page.locator('[data-test="user-name-item"]')
    await page.locator('[data-test="user-name"] input').fill('Sophie')
    await page.locator('[data-test="user-password"] input').fill('a good password')
    await page.locator('[data-test="user-submit"]').click()
    await expect
      .poll(async () => norm(await nameItem.innerText()))
      .toContain(
        'L’identifiant « Sophie » est déjà pris par le compte « sophie » (les majuscules ne comptent pas) : choisissez-en un autre.',
      )
    expect(await dialog(page).isVisible()).toBe(true)
    await screenshot(page, 'forms-taken-name')
    await page.locator('[data-test="user-name"] input').fill('sophie')
    await page.locator('[data-test="user-submit"]').click()
    await expect
      .poll(async () => norm(await nameItem.innerText()))
      .toContain('L’identifiant « sophie » est déjà pris : choisissez-en un autre.')
    // another name: the message goes, and the account is created
    await page.locator('[data-test="user-name"] input').fill('sophie-2')
    await expect.poll(async () => norm(await nameItem.innerText())).not.toContain('déjà pris')
    await page.locator('[data-test="user-submit"]').click()
    await closed(page)()
    await page.getByRole('row').filter({ hasText: 'sophie-2' }).waitFor()
  }, 60_000)

  it('emission creation, with the start date kept as typed', async () => {
    const page = admin
    await page.getByRole('menuitem', { name: 'Émissions' }).click()
    await page.getByRole('heading', { name: 'Émissions', level: 1 }).waitFor()
    let n = 0
    await checkForm(page, 'create emission', {
      channel: 'emissions:create',
      open: async () => {
        await page.locator('[data-test="new-emission"]').click()
        const code = page.locator('[data-test="create-code"] input')
        await code.fill(`FORM-${++n}`)
        return { field: code, submit: page.locator('[data-test="create-submit"]') }
      },
      after: closed(page),
    })

    // 2026-12-15 typed into the field, then the field left: the very day, whatever the time zone
    await page.locator('[data-test="new-emission"]').click()
    await page.locator('[data-test="create-code"] input').fill('FORM-DATE')
    const day = page.locator('[data-test="create-starts-on"] input')
    await day.click()
    await day.fill('2026-12-15')
    // left for another field: the panel closes, the day typed stays
    await page.locator('[data-test="create-code"] input').click()
    await page.locator('.n-date-panel').waitFor({ state: 'hidden' })
    expect(await day.inputValue()).toBe('2026-12-15')
    await screenshot(page, 'forms-start-date')
    await page.locator('[data-test="create-submit"]').click()
    await closed(page)()
    const created = await app.call<{ code: string; startsOn: string | null }[]>(
      'emissions:list',
      {},
      await pageToken(page),
    )
    if (!created.ok) throw new Error(created.error.message)
    expect(created.result.find((e) => e.code === 'FORM-DATE')?.startsOn).toBe('2026-12-15')
  }, 120_000)

  it('withdrawal (Ctrl+Enter in its reason)', async () => {
    const page = admin
    const created = await createdEmissions(app, page)
    let i = 0
    await checkForm(page, 'withdraw', {
      channel: 'emissions:withdraw',
      open: async () => {
        await page.locator(`[data-test="withdraw-${created[i++]}"]`).click()
        const reason = page.locator('[data-test="withdraw-reason"] textarea')
        await reason.fill('a test of the withdraw form')
        return { field: reason, submit: page.locator('[data-test="withdraw-submit"]'), ctrl: true }
      },
      after: closed(page),
    })
  }, 120_000)

  it('simulation and import', async () => {
    const page = admin
    const simulate = page.locator('[data-test="simulate-1"]')
    await checkForm(page, 'simulate', {
      channel: 'sales:simulate',
      open: async () => {
        await expect.poll(() => simulate.isEnabled(), { timeout: 60_000 }).toBe(true)
        await simulate.click()
        const count = page.locator('[data-test="simulate-sales"] input')
        await count.fill('10')
        return { field: count, submit: page.locator('[data-test="simulate-submit"]') }
      },
      after: async () => {
        await closed(page)()
        // the simulation ends before the next one is asked for (the button stays enabled meanwhile)
        const running = async () => {
          const jobs = await app.call<{ kind: string; state: string }[]>('jobs:list', {}, await pageToken(page))
          return jobs.ok ? jobs.result.filter((j) => j.state === 'running').length : -1
        }
        await expect.poll(running, { timeout: 60_000 }).toBe(0)
      },
    })

    const file = join(feeds, 'ventes.jsonl')
    const soldAt = new Date(Date.now() - 5_000).toISOString()
    const lines = [0, 1].map((i) =>
      feedLine({
        saleId: `FORMS-${i}`,
        serial: formatSerial({ emission: 1, block: 1, unit: 7_900_000 + i }, CARATS.blockSize),
        player: 'P-FORMS',
        soldAt,
        stakeCents: CARATS.unitPriceCents,
        play: null,
      }),
    )
    writeFileSync(file, lines.join('\n') + '\n')
    const submit = page.locator('[data-test="import-submit"]')
    await checkForm(page, 'import', {
      channel: 'sales:import',
      // no text field: Enter on the focused submit button
      open: async () => {
        await page.locator('[data-test="import-sales"]').click()
        await page.locator('[data-test="import-file"]').setInputFiles(file)
        await dialog(page).getByText('ventes.jsonl · 2 lignes').waitFor()
        return { field: submit, submit }
      },
      after: async () => {
        await expect
          .poll(
            async () =>
              (await dialog(page).count()) === 0 || (await page.locator('[data-test="import-rejected"]').count()) > 0,
            { timeout: 30_000 },
          )
          .toBe(true)
        if (await dialog(page).count()) await dialog(page).getByRole('button', { name: 'Annuler' }).click()
        await closed(page)()
      },
    })
  }, 180_000)

  it('the ticket inspector and the audit filters', async () => {
    const page = admin
    await page.getByRole('menuitem', { name: 'Inspecteur de tickets' }).click()
    const serial = page.locator('[data-test="serial"] input')
    const sold = formatSerial({ emission: 1, block: 1, unit: 12 }, CARATS.blockSize)
    await checkForm(page, 'inspect', {
      channel: 'tickets:get',
      open: async () => {
        await serial.fill(sold)
        return { field: serial, submit: page.locator('[data-test="serial-submit"]') }
      },
      after: () => page.locator('[data-test="ticket"]').waitFor({ timeout: 15_000 }),
    })

    await page.getByRole('menuitem', { name: 'Journal d’audit' }).click()
    const actor = page.locator('[data-test="filter-actor"] input')
    await checkForm(page, 'audit filters', {
      channel: 'audit:list',
      open: async () => {
        await actor.fill(STAFF.admin)
        return { field: actor, submit: page.locator('[data-test="filter-apply"]') }
      },
      after: () => page.waitForTimeout(300),
    })
  }, 120_000)

  it('support’s player search, and the auditor’s reason for an unsold unit', async () => {
    const { page } = await app.open()
    await signIn(page, 'support')
    const query = page.locator('[data-test="player-query"] input')
    await checkForm(page, 'player search', {
      channel: 'players:search',
      open: async () => {
        await query.fill('nobody-by-this-name')
        return { field: query, submit: page.locator('[data-test="player-search"]') }
      },
      after: () => page.locator('.results').waitFor({ timeout: 15_000 }),
    })

    const auditor = (await app.open()).page
    await signIn(auditor, 'auditor')
    const unsold = formatSerial({ emission: 1, block: 1, unit: 6_000_000 }, CARATS.blockSize)
    await auditor.goto(new URL(`#/tickets/${unsold}`, app.host.url).toString())
    const reason = auditor.locator('[data-test="unsold-reason"] textarea')
    await checkForm(auditor, 'unsold reason', {
      channel: 'tickets:get',
      open: async () => {
        // asked again for a reason: the unit's lookup starts over from the field
        if (!(await reason.isVisible())) await auditor.locator('[data-test="serial-submit"]').click()
        await reason.waitFor({ timeout: 15_000 })
        await reason.fill('a test of the reason form')
        return { field: reason, submit: auditor.locator('[data-test="unsold-inspect"]'), ctrl: true }
      },
      after: () => auditor.locator('[data-test="ticket"]').waitFor({ timeout: 15_000 }),
    })
  }, 180_000)
})

/** The emissions this file created by its forms, newest last. */
async function createdEmissions(app: JourneyApp, page: Page): Promise<number[]> {
  const r = await app.call<{ emission: number; code: string }[]>('emissions:list', {}, await pageToken(page))
  if (!r.ok) throw new Error(r.error.message)
  return r.result
    .filter((e) => /^FORM-\d+$/.test(e.code))
    .map((e) => e.emission)
    .sort((a, b) => a - b)
}
