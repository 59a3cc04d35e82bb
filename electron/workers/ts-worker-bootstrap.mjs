// Runs a TypeScript worker from source (tests, CLI under tsx): register tsx in this thread, then
// load the worker named in argv. The built app runs bundled JavaScript workers instead.
import { register } from 'tsx/esm/api'
import { pathToFileURL } from 'node:url'

register()
await import(pathToFileURL(process.argv[2]).href)
