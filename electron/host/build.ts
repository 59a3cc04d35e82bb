/**
 * Whether out/ is older than its sources, and building it once even when several processes ask
 * at the same time. The code is in build.mjs, plain JavaScript, because the browser host's
 * launcher (serve.mjs) runs it before anything is built and without a TypeScript loader.
 */
export { buildStatus, ensureBuilt, failureReason, OUTPUTS, PROJECT_ROOT, runBuild, withDirLock } from './build.mjs'
