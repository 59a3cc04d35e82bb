// Imported first by the contract: zod probes `new Function` when it builds its first object
// schema, which the app's Content-Security-Policy (no 'unsafe-eval') reports as a violation in the
// renderer and the preload. Jitless zod never tries; it validates the same way, a little slower,
// which arguments of a few fields do not notice.
import { config } from 'zod'

config({ jitless: true })
