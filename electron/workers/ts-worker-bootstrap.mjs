// Runs a TypeScript worker from source (tests, CLI under tsx): register tsx in this thread (both
// its ESM and CommonJS hooks: .ts files in this package load as CommonJS), then load the worker
// named in argv. The built app runs bundled JavaScript workers instead.
import { register as registerEsm } from 'tsx/esm/api'
import { register as registerCjs } from 'tsx/cjs/api'
import { pathToFileURL } from 'node:url'

registerEsm()
registerCjs()
await import(pathToFileURL(process.argv[2]).href)
