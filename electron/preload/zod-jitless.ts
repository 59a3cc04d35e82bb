// Imported before the contract: zod probes `new Function` when it builds its first object schema,
// which the Content-Security-Policy (no 'unsafe-eval') reports as a violation. Jitless zod never
// tries; it validates the same way, a little slower, which a preload that only builds schemas
// does not notice.
import { config } from 'zod'

config({ jitless: true })
