/**
 * `npm start` where Electron cannot run (here: no display), with no TTY: one line saying why,
 * then the browser host's address, which serves the app and the api.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt, PROJECT_ROOT } from '../../electron/host/build'

interface Started {
  child: ReturnType<typeof spawn>
  lines: string[]
  url: string
}

/** Runs `cmd args` as `npm start` would be, with no display, until it prints the host's address. */
async function launch(cmd: string, args: string[]): Promise<Started> {
  await ensureBuilt()
  const child = spawn(cmd, args, {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DISPLAY: '', WAYLAND_DISPLAY: '', CARATS_BROWSER: '' },
  })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  let out = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address within 60 s\n${out}${stderr}`)), 60_000)
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d
      const m = /^listening on (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    })
    child.once('exit', (code) => reject(new Error(`npm start exited (${code})\n${out}${stderr}`)))
  })
  return { child, lines: out.split('\n').filter(Boolean), url }
}

const START = join(PROJECT_ROOT, 'scripts', 'start.mjs')

describe.runIf(process.platform === 'linux')('npm start without a display', () => {
  const dir = mkdtempSync(join(tmpdir(), 'carats-start-'))
  let child: ReturnType<typeof spawn>
  let lines: string[] = []
  let url = ''

  beforeAll(async () => {
    ;({ child, lines, url } = await launch(process.execPath, [START, '--db', join(dir, 'start.db')]))
  }, 300_000)

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  })

  it('says in one line why, then prints the address', () => {
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(
      /^Electron runtime not available on this machine \(.*no graphical display.*\); serving the app for a browser instead\.$/,
    )
    expect(lines[1]).toBe(`listening on ${url}`)
  })

  it('serves the app and the api at that address, on the ledger given with --db', async () => {
    const page = await fetch(url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<div id="app">')
    const status = await fetch(new URL('api/auth:status', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"args":{}}',
    })
    expect(await status.json()).toEqual({ ok: true, result: { needsSetup: true, user: null } })
  })

  it('stops cleanly on SIGTERM, passed on to the host', async () => {
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    await expect(fetch(url)).rejects.toThrow()
  })
})

describe.runIf(process.platform === 'linux')('npm start stopped through npm', () => {
  const dir = mkdtempSync(join(tmpdir(), 'carats-start-npm-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  // npm passes its stop on to the shell that runs the script, not to the script: start.mjs, left
  // without its parent, must stop the host itself (it went on answering before)
  it('stops the host when the process that started it is gone', async () => {
    const { child, url } = await launch('sh', [
      '-c',
      `"${process.execPath}" "${START}" --browser --db "${join(dir, 'l.db')}"; exit $?`,
    ])
    expect((await fetch(url)).status).toBe(200)
    child.kill('SIGKILL')
    const deadline = Date.now() + 15_000
    let answering = true
    while (answering && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250))
      answering = await fetch(url).then(
        () => true,
        () => false,
      )
    }
    expect(answering).toBe(false)
  }, 120_000)
})
