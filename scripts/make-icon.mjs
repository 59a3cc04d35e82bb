#!/usr/bin/env node
/**
 * Renders resources/icon.svg to resources/icon.png (512x512, transparent corners) with the
 * Chromium that the end-to-end tests use. Run it after editing the SVG; both files are committed.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'

const resources = join(dirname(fileURLToPath(import.meta.url)), '..', 'resources')
const svg = readFileSync(join(resources, 'icon.svg'), 'utf8')
const browser = await chromium.launch({
  executablePath: process.env.CARATS_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
})
try {
  const page = await browser.newPage({ viewport: { width: 512, height: 512 } })
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`)
  await page.locator('svg').screenshot({ path: join(resources, 'icon.png'), omitBackground: true })
} finally {
  await browser.close()
}
console.error(`wrote ${join(resources, 'icon.png')}`)
